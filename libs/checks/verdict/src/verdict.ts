import type { SyntaxProblem } from '@mailguard/email';

/**
 * The verdict rules of docs/api.md#verdict-rules, in their order (the first row that applies decides), and the
 * `score` of every address. This file is the only place a verdict is made.
 */

export const STATUSES = ['valid', 'risky', 'invalid'] as const;
export type Status = (typeof STATUSES)[number];
/** Whether a value from outside (a `?status=` filter) names a status. */
export const isStatus = (value: string): value is Status => (STATUSES as readonly string[]).includes(value);
export const REACHABLES = ['safe', 'risky', 'invalid', 'unknown'] as const;
export type Reachable = (typeof REACHABLES)[number];
/** docs/api.md#reasons, declared once: the OpenAPI document and the agent tools' schemas list these. */
export const REASONS = [
  'accepted_email',
  'rejected_email',
  'invalid_syntax',
  'invalid_domain',
  'no_mx',
  'disabled',
  'catch_all',
  'disposable',
  'full_inbox',
  'role',
  'unknown',
] as const;
export type Reason = (typeof REASONS)[number];

/** What the SMTP probe established about the mailbox; `unknown` covers every case without an answer. */
export type MailboxAnswer = 'accepted' | 'busy' | 'no_such_user' | 'disabled' | 'full' | 'unknown';

/** Why no answer about the mailbox could be had (docs/api.md#substatus, `subStatus` of `unknown`); it moves the score. */
export const UNKNOWN_CAUSES = [
  'timeout',
  'greylisted',
  'sender_blocked',
  'rate_limited',
  'tls_failed',
  'mx_unreachable',
  'dns_error',
  'smtputf8_unsupported',
  'address_literal',
  'unclassified',
] as const;
export type UnknownCause = (typeof UNKNOWN_CAUSES)[number];

/** docs/api.md#substatus: a finer cause inside `reason`, from a closed vocabulary; null where nothing finer applies. */
export const SUB_STATUSES = [
  ...UNKNOWN_CAUSES,
  'control_characters',
  'too_long',
  'bad_local_part',
  'bad_domain',
  'no_such_user',
  'disabled',
  'null_mx',
  'no_mail_host',
] as const;
export type SubStatus = (typeof SUB_STATUSES)[number];

export interface VerdictInput {
  syntaxValid: boolean;
  /** Why the syntax failed, when it did. */
  syntaxProblem: SyntaxProblem | null;
  /** false: NXDOMAIN; null: DNS could not say. */
  domainExists: boolean | null;
  /** The domain has a null MX, or neither MX nor A/AAAA (or only MX hosts that do not exist). */
  noMail: boolean;
  /** The domain publishes a null MX (RFC 7505): it says it takes no mail. */
  nullMx: boolean;
  mailbox: MailboxAnswer;
  unknownCause: UnknownCause | null;
  catchAll: boolean;
  /** 0–100 for catch-all addresses, else null. */
  catchAllConfidence: number | null;
  disposable: boolean;
  role: boolean;
}

export interface Verdict {
  status: Status;
  reachable: Reachable;
  reason: Reason;
  subStatus: SubStatus | null;
  isValid: boolean;
  confidence: number | null;
  score: number;
}

/**
 * `score`: how likely a message is delivered, 0–100.
 * - invalid rows: 0–3 (nothing will be delivered; syntax failures are certain, the rest nearly so);
 * - catch-all: the catch-all confidence itself: it is calibrated (libs/checks/scoring/src/calibration.ts) to
 *   the share of such addresses that are real mailboxes, which is what `score` promises (docs/api.md#credits);
 *   any discount on top would make it say less than it knows;
 * - disposable: 30 when accepted (delivered, but to a throwaway inbox), 15 when unknown;
 * - full inbox: 15 (bounces until the owner makes room);
 * - role: 70 (delivered to a shared or unattended mailbox more often than not);
 * - unknown: 45 when greylisted or rate-limited (servers that ask us to come back have mailboxes to
 *   protect), 30 when our probe was blocked, timed out or the hosts did not answer, 20 when DNS itself failed;
 * - accepted: 97, or 92 when the server only proved the mailbox exists (rate-limited).
 */
const UNKNOWN_SCORE: Record<UnknownCause, number> = {
  greylisted: 45,
  rate_limited: 45,
  sender_blocked: 30,
  timeout: 30,
  tls_failed: 30,
  mx_unreachable: 30,
  smtputf8_unsupported: 30,
  address_literal: 30,
  unclassified: 30,
  dns_error: 20,
};

function row(
  status: Status,
  reachable: Reachable,
  reason: Reason,
  score: number,
  subStatus: SubStatus | null = null,
  confidence: number | null = null,
): Verdict {
  return { status, reachable, reason, subStatus, isValid: status !== 'invalid', confidence, score };
}

export function decideVerdict(input: VerdictInput): Verdict {
  if (!input.syntaxValid) return row('invalid', 'invalid', 'invalid_syntax', 0, input.syntaxProblem);
  if (input.domainExists === false) return row('invalid', 'invalid', 'invalid_domain', 1);
  if (input.noMail) return row('invalid', 'invalid', 'no_mx', 1, input.nullMx ? 'null_mx' : 'no_mail_host');
  if (input.mailbox === 'no_such_user') return row('invalid', 'invalid', 'rejected_email', 2, 'no_such_user');
  if (input.mailbox === 'disabled') return row('invalid', 'invalid', 'disabled', 3, 'disabled');
  if (input.catchAll) {
    const confidence = input.catchAllConfidence ?? 50;
    return row('risky', 'risky', 'catch_all', confidence, null, confidence);
  }
  const answered = input.mailbox === 'accepted' || input.mailbox === 'busy';
  if (input.disposable) return row('risky', 'risky', 'disposable', answered ? 30 : 15);
  if (input.mailbox === 'full') return row('risky', 'risky', 'full_inbox', 15);
  if (input.role && answered) return row('risky', 'risky', 'role', 70);
  if (!answered) {
    const cause = input.unknownCause ?? 'unclassified';
    return row('risky', 'unknown', 'unknown', UNKNOWN_SCORE[cause], cause);
  }
  return row('valid', 'safe', 'accepted_email', input.mailbox === 'busy' ? 92 : 97);
}
