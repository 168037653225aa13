import { decideVerdict, type VerdictInput } from './verdict';

const accepted: VerdictInput = {
  syntaxValid: true,
  syntaxProblem: null,
  domainExists: true,
  noMail: false,
  nullMx: false,
  mailbox: 'accepted',
  unknownCause: null,
  catchAll: false,
  catchAllConfidence: null,
  disposable: false,
  role: false,
};

/** docs/api.md#verdict-rules, one row per case, plus the cases where row order decides. */
const TABLE: Array<[string, Partial<VerdictInput>, string, string, string]> = [
  [
    'syntax failure',
    { syntaxValid: false, domainExists: null, mailbox: 'unknown' },
    'invalid',
    'invalid',
    'invalid_syntax',
  ],
  ['NXDOMAIN', { domainExists: false, mailbox: 'unknown' }, 'invalid', 'invalid', 'invalid_domain'],
  ['null MX or no MX/A', { noMail: true, mailbox: 'unknown' }, 'invalid', 'invalid', 'no_mx'],
  ['no such user', { mailbox: 'no_such_user' }, 'invalid', 'invalid', 'rejected_email'],
  ['disabled', { mailbox: 'disabled' }, 'invalid', 'invalid', 'disabled'],
  ['catch-all', { catchAll: true, catchAllConfidence: 70 }, 'risky', 'risky', 'catch_all'],
  ['disposable', { disposable: true }, 'risky', 'risky', 'disposable'],
  ['full inbox', { mailbox: 'full' }, 'risky', 'risky', 'full_inbox'],
  ['role accepted', { role: true }, 'risky', 'risky', 'role'],
  ['no SMTP answer', { mailbox: 'unknown', unknownCause: 'greylisted' }, 'risky', 'unknown', 'unknown'],
  ['accepted', {}, 'valid', 'safe', 'accepted_email'],
  ['mailbox busy but exists', { mailbox: 'busy' }, 'valid', 'safe', 'accepted_email'],
  // Order: the first row that applies decides.
  ['disposable and rejected', { disposable: true, mailbox: 'no_such_user' }, 'invalid', 'invalid', 'rejected_email'],
  [
    'catch-all and disposable',
    { catchAll: true, catchAllConfidence: 40, disposable: true },
    'risky',
    'risky',
    'catch_all',
  ],
  ['disposable and unknown', { disposable: true, mailbox: 'unknown' }, 'risky', 'risky', 'disposable'],
  ['role and full', { role: true, mailbox: 'full' }, 'risky', 'risky', 'full_inbox'],
  ['role but no answer', { role: true, mailbox: 'unknown' }, 'risky', 'unknown', 'unknown'],
  [
    'DNS could not say',
    { domainExists: null, mailbox: 'unknown', unknownCause: 'dns_error' },
    'risky',
    'unknown',
    'unknown',
  ],
];

/** docs/api.md#substatus: the finer cause inside each reason, from what the checks saw. */
const SUB_STATUS: Array<[string, Partial<VerdictInput>, string, string | null]> = [
  [
    'a control character',
    { syntaxValid: false, syntaxProblem: 'control_characters' },
    'invalid_syntax',
    'control_characters',
  ],
  ['an over-long address', { syntaxValid: false, syntaxProblem: 'too_long' }, 'invalid_syntax', 'too_long'],
  ['a null MX', { noMail: true, nullMx: true }, 'no_mx', 'null_mx'],
  ['no mail host', { noMail: true }, 'no_mx', 'no_mail_host'],
  ['no such user', { mailbox: 'no_such_user' }, 'rejected_email', 'no_such_user'],
  ['disabled', { mailbox: 'disabled' }, 'disabled', 'disabled'],
  ['greylisting', { mailbox: 'unknown', unknownCause: 'greylisted' }, 'unknown', 'greylisted'],
  ['a rate limit', { mailbox: 'unknown', unknownCause: 'rate_limited' }, 'unknown', 'rate_limited'],
  ['no cause known', { mailbox: 'unknown' }, 'unknown', 'unclassified'],
  ['NXDOMAIN', { domainExists: false }, 'invalid_domain', null],
  ['catch-all', { catchAll: true, catchAllConfidence: 50 }, 'catch_all', null],
  ['accepted', {}, 'accepted_email', null],
  ['role', { role: true }, 'role', null],
];

describe('decideVerdict', () => {
  it.each(SUB_STATUS)('subStatus for %s', (_name, input, reason, subStatus) => {
    expect(decideVerdict({ ...accepted, ...input })).toMatchObject({ reason, subStatus });
  });

  it.each(TABLE)('%s', (_name, input, status, reachable, reason) => {
    const verdict = decideVerdict({ ...accepted, ...input });
    expect(verdict).toMatchObject({ status, reachable, reason, isValid: status !== 'invalid' });
    expect(verdict.score).toBeGreaterThanOrEqual(0);
    expect(verdict.score).toBeLessThanOrEqual(100);
    expect(verdict.confidence === null).toBe(reason !== 'catch_all');
  });

  it('orders scores: accepted > role > unknown > full/disposable > invalid', () => {
    const score = (input: Partial<VerdictInput>) => decideVerdict({ ...accepted, ...input }).score;
    expect(score({})).toBeGreaterThan(score({ role: true }));
    expect(score({ role: true })).toBeGreaterThan(score({ mailbox: 'unknown', unknownCause: 'greylisted' }));
    expect(score({ mailbox: 'unknown', unknownCause: 'greylisted' })).toBeGreaterThan(score({ mailbox: 'full' }));
    expect(score({ mailbox: 'full' })).toBeGreaterThan(score({ mailbox: 'no_such_user' }));
  });

  it('tracks the catch-all confidence in the score', () => {
    const low = decideVerdict({ ...accepted, catchAll: true, catchAllConfidence: 20 });
    const high = decideVerdict({ ...accepted, catchAll: true, catchAllConfidence: 90 });
    expect(high.score).toBeGreaterThan(low.score);
    expect(high.confidence).toBe(90);
  });

  it('scores a catch-all address its confidence: both are calibrated to the share of real mailboxes (docs/api.md#credits)', () => {
    for (const confidence of [3, 45, 88])
      expect(decideVerdict({ ...accepted, catchAll: true, catchAllConfidence: confidence }).score).toBe(confidence);
  });
});
