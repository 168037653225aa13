/**
 * The verdict rules of API.md §1.1, in their order (the first row that applies decides), and the
 * `score` of every address. This file is the only place a verdict is made.
 */

export type Status = 'valid' | 'risky' | 'invalid';
export type Reachable = 'safe' | 'risky' | 'invalid' | 'unknown';
export type Reason =
  | 'accepted_email'
  | 'rejected_email'
  | 'invalid_syntax'
  | 'invalid_domain'
  | 'no_mx'
  | 'disabled'
  | 'catch_all'
  | 'disposable'
  | 'full_inbox'
  | 'role'
  | 'unknown';

/** What the SMTP probe established about the mailbox; `unknown` covers every case without an answer. */
export type MailboxAnswer = 'accepted' | 'busy' | 'no_such_user' | 'disabled' | 'full' | 'unknown';

/** Why SMTP gave no answer, when it did not: it moves the score of `unknown` results. */
export type UnknownCause = 'greylisted' | 'sender_blocked' | 'dns_error' | 'no_connection' | 'other';

export interface VerdictInput {
  syntaxValid: boolean;
  /** false: NXDOMAIN; null: DNS could not say. */
  domainExists: boolean | null;
  /** The domain has a null MX, or neither MX nor A/AAAA (or only MX hosts that do not exist). */
  noMail: boolean;
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
  isValid: boolean;
  confidence: number | null;
  score: number;
}

/**
 * `score`: how likely a message is delivered, 0–100.
 * - invalid rows: 0–3 (nothing will be delivered; syntax failures are certain, the rest nearly so);
 * - catch-all: 90% of the catch-all confidence (the domain takes the message; whether a person reads
 *   the mailbox is what the confidence estimates, and a catch-all can still bounce later);
 * - disposable: 30 when accepted (delivered, but to a throwaway inbox), 15 when unknown;
 * - full inbox: 15 (bounces until the owner makes room);
 * - role: 70 (delivered to a shared or unattended mailbox more often than not);
 * - unknown: 45 when greylisted (servers greylist mailboxes that exist), 30 when our probe was
 *   blocked or the hosts did not answer, 20 when DNS itself failed;
 * - accepted: 97, or 92 when the server only proved the mailbox exists (rate-limited).
 */
const UNKNOWN_SCORE: Record<UnknownCause, number> = { greylisted: 45, sender_blocked: 30, no_connection: 30, other: 30, dns_error: 20 };

function row(status: Status, reachable: Reachable, reason: Reason, score: number, confidence: number | null = null): Verdict {
  return { status, reachable, reason, isValid: status !== 'invalid', confidence, score };
}

export function decideVerdict(input: VerdictInput): Verdict {
  if (!input.syntaxValid) return row('invalid', 'invalid', 'invalid_syntax', 0);
  if (input.domainExists === false) return row('invalid', 'invalid', 'invalid_domain', 1);
  if (input.noMail) return row('invalid', 'invalid', 'no_mx', 1);
  if (input.mailbox === 'no_such_user') return row('invalid', 'invalid', 'rejected_email', 2);
  if (input.mailbox === 'disabled') return row('invalid', 'invalid', 'disabled', 3);
  if (input.catchAll) {
    const confidence = input.catchAllConfidence ?? 50;
    return row('risky', 'risky', 'catch_all', Math.round(confidence * 0.9), confidence);
  }
  const answered = input.mailbox === 'accepted' || input.mailbox === 'busy';
  if (input.disposable) return row('risky', 'risky', 'disposable', answered ? 30 : 15);
  if (input.mailbox === 'full') return row('risky', 'risky', 'full_inbox', 15);
  if (input.role && answered) return row('risky', 'risky', 'role', 70);
  if (!answered) return row('risky', 'unknown', 'unknown', UNKNOWN_SCORE[input.unknownCause ?? 'other']);
  return row('valid', 'safe', 'accepted_email', input.mailbox === 'busy' ? 92 : 97);
}
