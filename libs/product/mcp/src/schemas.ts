import { z } from 'zod';
import { REACHABLES, REASONS, STATUSES } from '@mailguard/verdict';

/*
 * The answers of docs/api.md as zod schemas: the tools' published output schemas. Every documented field
 * is required; the published schemas allow more (tool-server.ts), so that a field the service adds
 * later does not break a client that validates.
 */

const mxRecord = z.object({ exchange: z.string(), priority: z.number().int() });

/** docs/api.md#the-result-object: one verification result. */
export const verificationResult = z.object({
  email: z.string().describe('The address as normalised: trimmed, domain lower-cased'),
  domain: z.string(),
  status: z
    .enum(STATUSES)
    .describe('The verdict: valid = deliverable, risky = may bounce or is low value, invalid = do not send'),
  confidence: z
    .number()
    .int()
    .nullable()
    .describe('0-100 when the domain is catch-all: how likely this address exists; else null'),
  score: z.number().int().describe('0-100: how likely a message to this address is delivered'),
  reason: z.enum(REASONS),
  subStatus: z
    .string()
    .nullable()
    .optional()
    .describe('A finer cause inside reason (e.g. timeout, greylisted, no_such_user); null when none'),
  isValid: z.boolean(),
  reachable: z.enum(REACHABLES).describe('unknown: the mail server gave no answer in time (not charged)'),
  syntax: z.boolean(),
  smtp: z.object({
    hostExists: z.boolean(),
    deliverable: z.boolean(),
    catchAll: z.boolean(),
    fullInbox: z.boolean(),
    disabled: z.boolean(),
  }),
  isFree: z.boolean(),
  isRole: z.boolean(),
  isDisposable: z.boolean(),
  hasGravatar: z.boolean(),
  suggestion: z
    .string()
    .nullable()
    .describe('A likely intended address for a typo (john@gmial.com -> john@gmail.com); null when none'),
  verifiedAt: z.string(),
  cached: z.boolean(),
  checks: z.object({
    syntax: z.object({ valid: z.boolean(), localPart: z.string(), domain: z.string() }),
    domain: z.object({ exists: z.boolean().nullable() }),
    mx: z.object({
      valid: z.boolean(),
      records: z.array(mxRecord),
      nullMx: z.boolean(),
      implicit: z.boolean(),
      provider: z.string().nullable(),
    }),
    smtp: z.object({
      checked: z.boolean(),
      code: z.number().int().nullable(),
      enhancedCode: z.string().nullable(),
      message: z.string().nullable(),
      durationMs: z.number(),
    }),
    disposable: z.object({ value: z.boolean() }),
    role: z.object({ value: z.boolean() }),
    catchAll: z.object({ value: z.boolean(), confidence: z.number().int().nullable() }),
    domainAge: z.object({ createdAt: z.string().nullable(), ageDays: z.number().int().nullable() }),
    authentication: z.object({
      spf: z.object({ present: z.boolean(), record: z.string().nullable() }),
      dkim: z.object({ present: z.boolean(), selectors: z.array(z.string()) }),
      dmarc: z.object({ present: z.boolean(), policy: z.string().nullable() }),
    }),
  }),
});

/** #2. */
export const batchResult = z.object({
  results: z.array(verificationResult).describe('One result per input address, in input order'),
});

/** #9. */
export const finderAnswer = z.object({
  email: z.string().nullable().describe('The address found; null when nobody was found (then nothing was charged)'),
  confidence: z.number().int().describe('0-100: how likely the address reaches the person'),
  pattern: z.string().nullable().describe('The address pattern used, e.g. first.last'),
  result: verificationResult.nullable(),
  alternatives: z
    .array(z.object({ email: z.string(), confidence: z.number().int() }))
    .describe('Other likely addresses at a catch-all domain'),
});

/** #10. */
export const domainInsight = z.object({
  domain: z.string(),
  catchAll: z
    .boolean()
    .nullable()
    .describe(
      'true: the domain accepts any address, so single addresses there cannot be confirmed; null: the server could not be asked',
    ),
  pattern: z
    .string()
    .nullable()
    .describe('The address pattern learned for the domain, e.g. first.last; null while none is known'),
  provider: z
    .string()
    .nullable()
    .describe('The mail provider recognised from the MX records (google, microsoft, ...); null when not recognised'),
  mx: z.array(mxRecord),
  confidence: z.number().int().describe("0-100: the learned pattern's share of the domain's known addresses"),
});

/** #3. */
export const feedbackAccepted = z.object({ accepted: z.literal(true) });

/** docs/api.md#the-list-object. */
export const listView = z.object({
  id: z.string(),
  name: z.string(),
  status: z.enum(['queued', 'processing', 'paused', 'completed', 'failed', 'cancelled']),
  total: z.number().int(),
  processed: z.number().int(),
  duplicates: z.number().int(),
  percent: z.number(),
  etaSeconds: z.number().nullable(),
  counts: z.object({ valid: z.number().int(), risky: z.number().int(), invalid: z.number().int() }),
  creditsHeld: z.number().int(),
  creditsCharged: z.number().int(),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  completedAt: z.string().nullable(),
  expiredAt: z
    .string()
    .nullable()
    .describe('When retention erased its rows (list_results then refuses); null while kept'),
  error: z.string().nullable(),
  greylisted: z
    .object({ rows: z.number().int(), nextRetryAt: z.string() })
    .nullable()
    .describe('Rows waiting for a greylisting retry and when the next is due; null when none waits'),
});

/** #7 as JSON. */
export const listResultsPage = z.object({
  data: z.array(
    z.object({
      row: z.number().int().describe('1-based data row of the CSV'),
      email: z.string(),
      result: verificationResult.nullable().describe('null while the row is not checked yet'),
    }),
  ),
  page: z.number().int(),
  limit: z.number().int(),
  total: z.number().int(),
});

/** #20. */
export const creditBalance = z.object({
  balance: z.number().int(),
  held: z.number().int().describe('Credits held by lists still running'),
  currency: z.literal('credits'),
});

/** What a refused tool call says (docs/api.md#errors), the REST error body plus the seconds to wait on rate limits. */
export interface ToolError {
  error: string;
  code: string;
  retryAfterSeconds?: number;
}
