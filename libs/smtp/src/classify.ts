import type { SmtpReply } from './reply';

/**
 * What an SMTP reply says about the mailbox. This file is the only place replies are interpreted.
 *
 * The reply code class (2xx/4xx/5xx), the RFC 3463 enhanced code and the text are read together:
 * text alone misleads (a permanent `5.7.1 … blocked using Spamhaus` is about *us*, not the mailbox;
 * a `450 4.1.1 … User unknown` is temporary and proves nothing), and the code alone is too coarse
 * (a bare `550` is used for both "no such user" and "you are blocked").
 */
export type ReplyClass =
  /** The server takes mail for the mailbox. */
  | 'accepted'
  /** The mailbox exists but is busy (Gmail's 4.2.1 "receiving mail at a rate"). */
  | 'mailbox_exists'
  /** Permanent: no such user. */
  | 'no_such_user'
  /** Permanent: the mailbox is disabled or deactivated. */
  | 'disabled'
  /** The mailbox is over quota (4.2.2 or 5.2.2). */
  | 'full'
  /** A temporary refusal to try again later (greylisting and friends). */
  | 'greylisted'
  /** The server refuses a further recipient in this session: probe it in a session of its own. */
  | 'too_many_recipients'
  /** Our address, host or reputation is refused (blocklists, rDNS, policy): says nothing of the mailbox. */
  | 'sender_blocked'
  /** Relaying or authentication refused: the server is not the mailbox's MX for us. */
  | 'relay_denied'
  /** TLS must be negotiated first. */
  | 'tls_required'
  /** Any other temporary failure. */
  | 'temporary'
  /** A permanent refusal whose reason cannot be told: not evidence against the mailbox. */
  | 'unclassified';

export type SmtpStage = 'banner' | 'ehlo' | 'mail' | 'rcpt';

interface Rule {
  class: ReplyClass;
  /** Reply code classes the rule applies to. */
  codes: Array<4 | 5>;
  /** Enhanced codes (exact, or `5.1.*` prefixes); absent: any. */
  enhanced?: string[];
  /** Text pattern; absent: any. */
  text?: RegExp;
  /** Only on these stages; absent: RCPT only. */
  stages?: SmtpStage[];
}

const BLOCKLIST_TEXT =
  /spamhaus|spamcop|barracuda|sorbs|blocked using|block ?list|black ?list|blacklisted|\bdnsbl\b|\brbl\b|listed (?:at|on|in|by)|reputation|senderbase|banned sending ip|client host .*(?:blocked|rejected)|(?:your|the) (?:ip|address|host|network).*(?:blocked|listed|block list|not (?:allowed|accepted))|not accepted from this ip|connections will not be accepted|reverse (?:dns|hostname)|\bptr\b|\brdns\b|unsolicited|spam|sender (?:address )?(?:rejected|blocked|denied)|unauthenticated|\bspf\b|\bdmarc\b|\[ts\d\d\]|\[bl\d\d\]|temporarily deferred due to|access denied, |administrative prohibition|security polic/i;

const NO_SUCH_USER_TEXT =
  /user unknown|unknown user|no such (?:user|recipient|mailbox|account)|user (?:not found|does not exist|doesn't exist)|recipient (?:not found|unknown|address rejected)|unknown recipient|invalid (?:recipient|mailbox|address)|mailbox (?:unavailable|not found|does not exist|doesn't exist)|(?:account|address|mailbox) (?:that you tried to reach )?does not exist|doesn't have an? [\w.-]+ account|not our customer|no mailbox|undeliverable address|address rejected|recipientnotfound|unrouteable address|user not found/i;

const DISABLED_TEXT = /disabled|deactivated|inactive|suspended|account (?:has been )?closed|no longer (?:active|available|in use)|mailbox is frozen/i;
const FULL_TEXT = /over ?quota|quota exceeded|exceeded (?:its|the) (?:storage|quota)|mailbox (?:is )?full|insufficient (?:storage|space)|out of storage/i;
const GREYLIST_TEXT = /grey ?list|gray ?list|try again later|please retry|retry later|temporarily (?:rejected|deferred|unavailable)|come back later|deferred/i;
const TOO_MANY_RCPT_TEXT = /too many recipients|recipients belong to multiple regions|too many rcpt/i;

/** Ordered: the first rule that matches decides. */
const RULES: Rule[] = [
  // Office 365 directory-based edge blocking: "550 5.4.1 Recipient address rejected: Access denied".
  { class: 'no_such_user', codes: [5], enhanced: ['5.4.1'], text: /recipient address rejected/i },
  { class: 'tls_required', codes: [5], text: /starttls|must issue a starttls|tls required|encryption required/i, stages: ['mail', 'rcpt'] },
  { class: 'too_many_recipients', codes: [4, 5], enhanced: ['4.5.3', '5.5.3'] },
  { class: 'too_many_recipients', codes: [4, 5], text: TOO_MANY_RCPT_TEXT },
  { class: 'mailbox_exists', codes: [4], enhanced: ['4.2.1'], text: /receiving mail at a rate|rate that prevents/i },
  // Words about us outrank words about the mailbox, whatever the code.
  { class: 'sender_blocked', codes: [4, 5], text: BLOCKLIST_TEXT, stages: ['banner', 'ehlo', 'mail', 'rcpt'] },
  { class: 'relay_denied', codes: [5], enhanced: ['5.7.54'] },
  { class: 'relay_denied', codes: [4, 5], text: /relay(?:ing)? (?:access )?(?:denied|not permitted|prohibited)|unable to relay|authentication required|not authenticated|auth(?:entication)? (?:is )?required/i },
  { class: 'full', codes: [4, 5], enhanced: ['4.2.2', '5.2.2'] },
  { class: 'full', codes: [4, 5], text: FULL_TEXT },
  { class: 'disabled', codes: [5], enhanced: ['5.2.1'] },
  { class: 'no_such_user', codes: [5], enhanced: ['5.1.1', '5.1.10', '5.1.6', '5.1.3', '5.1.2'] },
  { class: 'disabled', codes: [5], text: DISABLED_TEXT },
  // 5.7.x is security or policy: never read as "no such user", whatever the text goes on to say.
  { class: 'sender_blocked', codes: [5], enhanced: ['5.7.*'] },
  { class: 'no_such_user', codes: [5], enhanced: ['5.1.*', '5.0.0', '5.5.0', '5.2.0', '5.4.*'], text: NO_SUCH_USER_TEXT },
  { class: 'no_such_user', codes: [5], text: NO_SUCH_USER_TEXT },
  { class: 'greylisted', codes: [4], text: GREYLIST_TEXT },
  { class: 'greylisted', codes: [4], enhanced: ['4.7.1', '4.2.0', '4.7.0'] },
  { class: 'temporary', codes: [4] },
  { class: 'unclassified', codes: [5] },
];

function enhancedMatches(patterns: string[], code: string | null): boolean {
  if (!code) return false;
  return patterns.some((pattern) => (pattern.endsWith('.*') ? code.startsWith(pattern.slice(0, -1)) : code === pattern));
}

/** Classifies a reply received at `stage`; only RCPT-stage replies can speak of the mailbox. */
export function classifyReply(reply: Pick<SmtpReply, 'code' | 'enhancedCode' | 'message'>, stage: SmtpStage = 'rcpt'): ReplyClass {
  const codeClass = Math.floor(reply.code / 100) as 2 | 3 | 4 | 5;
  if (codeClass === 2 || codeClass === 3) return 'accepted';
  for (const rule of RULES) {
    if (!rule.codes.includes(codeClass)) continue;
    if (!(rule.stages ?? ['rcpt']).includes(stage)) continue;
    if (rule.enhanced && !enhancedMatches(rule.enhanced, reply.enhancedCode)) continue;
    if (rule.text && !rule.text.test(reply.message)) continue;
    return rule.class;
  }
  // Before RCPT, a refusal is about the session, never the mailbox.
  return codeClass === 4 ? 'temporary' : 'sender_blocked';
}
