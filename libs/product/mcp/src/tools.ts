import { z } from 'zod';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { MAX_ADDRESS_INPUT, MAX_BATCH } from '@mailguard/errors';
import { STATUSES, type Status } from '@mailguard/verdict';
import {
  batchResult,
  creditBalance,
  domainInsight,
  feedbackAccepted,
  finderAnswer,
  listResultsPage,
  listView,
  verificationResult,
} from './schemas';

/** create_list takes the CSV as text in the call: larger lists go through POST /v1/lists (50 MB). */
export const MAX_CSV_TEXT_BYTES = 5 * 1024 * 1024;

/** How a model should read a verdict: said once, in every tool that returns results. */
const VERDICTS =
  'Each result has status valid (the mail server accepted the mailbox: safe to send), risky (may bounce or is of little value: ' +
  'catch_all = the domain accepts any address, so confidence says how likely this one exists; disposable; full_inbox; role such as info@; ' +
  'unknown = the server gave no answer in time — subStatus says why, e.g. timeout, greylisted, sender_blocked — worth retrying later) or ' +
  'invalid (do not send: rejected_email = no such mailbox, invalid_syntax, invalid_domain, no_mx, disabled). ' +
  'score (0-100) is how likely a message is delivered; suggestion proposes a fix for a typo (john@gmial.com -> john@gmail.com).';

interface ToolSpec<I extends z.ZodObject, O extends z.ZodType> {
  title: string;
  description: string;
  input: I;
  output: O;
  annotations: ToolAnnotations;
  /** One line for the model and the log: what the answer says. */
  summary(value: z.output<O>, input: z.output<I>): string;
}

const tool = <I extends z.ZodObject, O extends z.ZodType>(spec: ToolSpec<I, O>) => spec;

/** Paid, and the answer comes from the world (DNS, the mail servers): not read-only, not idempotent. */
const PAID_CHECK: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: true,
};
/** Reads the account's own data, free. */
const ACCOUNT_READ: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

function verdictLine(result: z.output<typeof verificationResult>): string {
  const extra = [
    result.confidence !== null ? `confidence ${result.confidence}` : null,
    result.suggestion ? `did you mean ${result.suggestion}?` : null,
  ].filter(Boolean);
  const reason = result.subStatus ? `${result.reason}/${result.subStatus}` : result.reason;
  return [`${result.email}: ${result.status} (${reason}), score ${result.score}`, ...extra].join(', ');
}

/** The tools of docs/mcp.md, each the mirror of one REST call (its number in docs/api.md#endpoints in the title). */
export const TOOLS = {
  verify_email: tool({
    title: 'Verify one email address (GET /v1/email-validation/:email)',
    description:
      'Checks whether one email address can receive mail before you use it (CRM entry, outreach, sign-up): syntax, domain, MX, ' +
      'an SMTP mailbox check without sending, disposable/role/free provider, catch-all, domain age, SPF/DKIM/DMARC. ' +
      `${VERDICTS} Costs 1 credit (also for invalid and cached answers); results with reachable "unknown" are free. ` +
      'Takes up to about 12 seconds. For several addresses call verify_emails (up to 100 in one call); for hundreds or more use create_list.',
    input: z.object({
      email: z
        .string()
        .min(1, { error: 'email must not be empty' })
        .max(MAX_ADDRESS_INPUT, { error: `The address is longer than ${MAX_ADDRESS_INPUT} characters` })
        .describe('The address to check, e.g. jane.doe@example.com'),
    }),
    output: verificationResult,
    annotations: { ...PAID_CHECK, title: 'Verify email' },
    summary: (result) => verdictLine(result),
  }),
  verify_emails: tool({
    title: 'Verify up to 100 email addresses (POST /v1/email-validation/batch)',
    description:
      `Checks up to ${MAX_BATCH} addresses in one call, concurrently, and returns one result per address in input order ` +
      `(the same result as verify_email). Prefer it to repeated verify_email calls: one call, one answer within about 12 seconds. ${VERDICTS} ` +
      'Costs 1 credit per distinct address (a repeated address is charged once); results with reachable "unknown" are free. ' +
      `For more than ${MAX_BATCH} addresses use create_list.`,
    input: z.object({
      emails: z
        .array(
          z.string().max(MAX_ADDRESS_INPUT, { error: `every address must be at most ${MAX_ADDRESS_INPUT} characters` }),
          { error: 'emails must be an array of addresses' },
        )
        .min(1, { error: 'emails must hold at least one address' })
        .max(MAX_BATCH, { error: `emails may hold at most ${MAX_BATCH} addresses` })
        .describe(`1 to ${MAX_BATCH} addresses`),
    }),
    output: batchResult,
    annotations: { ...PAID_CHECK, title: 'Verify emails' },
    summary: ({ results }) => {
      const count = (status: Status) => results.filter((result) => result.status === status).length;
      const counts = STATUSES.map((status) => `${count(status)} ${status}`).join(', ');
      const unknown = results.filter((result) => result.reachable === 'unknown').length;
      return `${results.length} addresses: ${counts}${unknown > 0 ? ` (${unknown} without an answer from their server, not charged)` : ''}`;
    },
  }),
  find_email: tool({
    title: "Find a person's work email address (GET /v1/email-finder)",
    description:
      "Finds the work address of a person at a company from their name and the company's domain (or website URL): tries the " +
      "likely patterns (first.last, flast, ...) against the company's mail server and returns the one it accepts, with its verification " +
      'result. At a catch-all domain (accepts any address) it returns the candidate with the highest catch-all confidence (the confidence a check of that address gives) and alternatives. ' +
      'Costs 1 credit when an address is returned, nothing when email is null. Give firstName and lastName, or fullName.',
    input: z.object({
      firstName: z.string().optional().describe('Given name, e.g. Jane'),
      lastName: z.string().optional().describe('Family name, e.g. Doe'),
      fullName: z.string().optional().describe('Instead of firstName and lastName, e.g. "Jane Doe"'),
      domain: z
        .string({ error: 'Give domain: a company domain or URL' })
        .describe('Company domain or website, e.g. acme.com or https://www.acme.com'),
    }),
    output: finderAnswer,
    annotations: { ...PAID_CHECK, title: 'Find email' },
    summary: (answer, input) =>
      answer.email
        ? `Found ${answer.email} (confidence ${answer.confidence}${answer.pattern ? `, pattern ${answer.pattern}` : ''})`
        : `Nobody found at ${input.domain}; nothing charged`,
  }),
  domain_insight: tool({
    title: "What a domain's mail looks like (GET /v1/email-finder/domain/:domain)",
    description:
      "Describes a company's mail setup before you guess or check addresses there: its MX hosts and provider, whether it is catch-all " +
      '(accepts any address, so single addresses cannot be confirmed there), and the address pattern the service has learned for it ' +
      '(e.g. first.last) with its confidence. Free.',
    input: z.object({ domain: z.string().describe('A domain or website URL, e.g. acme.com') }),
    output: domainInsight,
    annotations: {
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true,
      title: 'Domain insight',
    },
    summary: (insight) =>
      `${insight.domain}: catch-all ${insight.catchAll === null ? 'unknown' : insight.catchAll ? 'yes' : 'no'}, provider ${insight.provider ?? 'not recognised'}, ` +
      `${insight.mx.length} MX, pattern ${insight.pattern ? `${insight.pattern} (confidence ${insight.confidence})` : 'not learned yet'}`,
  }),
  report_outcome: tool({
    title: 'Report what happened to mail sent to an address (POST /v1/email-validation/feedback)',
    description:
      'Tells the service whether mail to a checked address was delivered or bounced. It improves the confidence given for addresses ' +
      "at catch-all domains and drops the address's cached result, so the next check asks again. Free. Report real outcomes only.",
    input: z.object({
      email: z
        .string()
        .max(MAX_ADDRESS_INPUT, { error: `email must be at most ${MAX_ADDRESS_INPUT} characters` })
        .describe('The address mail was sent to'),
      outcome: z.enum(['delivered', 'bounced'], { error: 'outcome must be delivered or bounced' }),
    }),
    output: feedbackAccepted,
    annotations: {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: false,
      title: 'Report outcome',
    },
    summary: (_accepted, input) => `Recorded: mail to ${input.email} ${input.outcome}`,
  }),
  create_list: tool({
    title: 'Verify a whole CSV list in the background (POST /v1/lists)',
    description:
      'Starts a bulk check of a CSV (header row required; comma or semicolon; the email column is found by its header, or name it in ' +
      'emailColumn) and returns at once with the list id and status "queued". Poll list_status until status is "completed", then read ' +
      'list_results. Use it for more than 100 addresses. Costs 1 credit per row, except repeated addresses and syntax failures; the credits ' +
      `are held at once (fails when the balance is short), charged as rows are answered, and what rows whose server gave no answer held is released at the end. CSV text up to ` +
      `${MAX_CSV_TEXT_BYTES / 1024 / 1024} MB here (larger files: POST /v1/lists, up to 50 MB).`,
    input: z.object({
      csv: z.string().describe('The CSV file content, header row first'),
      name: z.string().optional().describe('A name for the list, e.g. leads-march.csv'),
      emailColumn: z.string().optional().describe('Header of the column holding the addresses, when it is not obvious'),
      webhookUrl: z
        .string()
        .optional()
        .describe('A public https URL called with the list object when the list completes'),
    }),
    output: listView,
    annotations: { ...PAID_CHECK, title: 'Create list' },
    summary: (list) =>
      `List ${list.id} (${list.name}) ${list.status}: ${list.total} rows, ${list.creditsHeld} credits held; poll list_status with this id`,
  }),
  list_status: tool({
    title: 'Progress of a list (GET /v1/lists/:id)',
    description:
      'The state of a list started with create_list: status (queued, processing, completed, failed, cancelled), rows processed of total, ' +
      'percent, estimated seconds left, counts of valid/risky/invalid, credits held and charged. Free. When polling, wait about etaSeconds ' +
      '(or 10 seconds) between calls.',
    input: z.object({ id: z.string().describe('The list id returned by create_list, e.g. lst_...') }),
    output: listView,
    annotations: { ...ACCOUNT_READ, title: 'List status' },
    summary: (list) =>
      `List ${list.id} ${list.status}: ${list.processed}/${list.total} rows (${list.percent}%), ${list.counts.valid} valid, ${list.counts.risky} risky, ${list.counts.invalid} invalid`,
  }),
  list_results: tool({
    title: 'Results of a list, one page at a time (GET /v1/lists/:id/results)',
    description: `The rows of a list with their verification results, 20 per page, optionally only one status. ${VERDICTS} Free. Refused (code expired) once the rows were erased after the retention period.`,
    input: z.object({
      id: z.string().describe('The list id'),
      status: z
        .enum(STATUSES, { error: `status must be one of ${STATUSES.join(', ')}` })
        .optional()
        .describe('Only rows with this status'),
      page: z
        .number({ error: 'page must be a whole number from 1' })
        .int({ error: 'page must be a whole number from 1' })
        .min(1, { error: 'page must be a whole number from 1' })
        .optional()
        .describe('From 1'),
    }),
    output: listResultsPage,
    annotations: { ...ACCOUNT_READ, title: 'List results' },
    summary: (page, input) =>
      `List ${input.id}, page ${page.page}: rows ${page.data.length ? `${page.data[0].row}-${page.data[page.data.length - 1].row}` : 'none'} of ${page.total}`,
  }),
  credits: tool({
    title: 'Credit balance (GET /v1/credits)',
    description:
      "The account's credit balance and the credits held by lists still running. Free. Checks cost 1 credit per address; finding an address 1.",
    input: z.object({}),
    output: creditBalance,
    annotations: { ...ACCOUNT_READ, title: 'Credits' },
    summary: (credits) => `Balance ${credits.balance} credits (${credits.held} held by running lists)`,
  }),
};

export type ToolName = keyof typeof TOOLS;
export const TOOL_NAMES = Object.keys(TOOLS) as ToolName[];
export type ToolInput<N extends ToolName> = z.output<(typeof TOOLS)[N]['input']>;
export type ToolValue<N extends ToolName> = z.output<(typeof TOOLS)[N]['output']>;
