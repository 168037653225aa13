import { classifyReply, type ReplyClass, type SmtpStage } from './classify';
import corpus from './fixtures/replies.json';
import check from './fixtures/replies-check.json';
import spentRound1 from './fixtures/replies-heldout.json';
import spentRound2 from './fixtures/replies-heldout-2.json';
import spentRound3 from './fixtures/replies-heldout-3.json';
import spentRound4 from './fixtures/replies-heldout-4.json';
import spentRound5 from './fixtures/replies-heldout-5.json';
import spentRound6 from './fixtures/replies-heldout-6.json';
import spentRound7 from './fixtures/replies-heldout-7.json';
import spentRound8 from './fixtures/replies-heldout-8.json';
import spentRound9 from './fixtures/replies-heldout-9.json';
import spentRound10 from './fixtures/replies-heldout-10.json';
import spentRound11 from './fixtures/replies-heldout-11.json';
import spentRound12 from './fixtures/replies-heldout-12.json';
import spentRound13 from './fixtures/replies-heldout-13.json';
import spentRound14 from './fixtures/replies-heldout-14.json';
import round15 from './fixtures/replies-heldout-15.json';
import sisimaiPhrases from './fixtures/replies-sisimai.json';
import { buildReply } from './reply';

/**
 * The targets of issue 17, measured over real replies (fixtures/replies.json, and the held-back
 * replies-check.json that was written before the classifier was tuned): replies about *us* never
 * read as evidence against the mailbox, "no such user" and quota replies recognised.
 */
interface Entry {
  stage: SmtpStage;
  reply: string[];
  class: ReplyClass;
  source: string;
  tags?: string[];
}

const STAGES: SmtpStage[] = ['banner', 'ehlo', 'mail', 'rcpt', 'data'];
const CLASSES: ReplyClass[] = [
  'accepted',
  'mailbox_exists',
  'no_such_user',
  'disabled',
  'full',
  'greylisted',
  'too_many_recipients',
  'sender_blocked',
  'rate_limited',
  'relay_denied',
  'tls_required',
  'temporary',
  'unclassified',
];
/** Replies about the sender: blocklists, reputation, rDNS, policy, authentication, rate limits. */
const ABOUT_US: ReplyClass[] = ['sender_blocked', 'rate_limited'];
const AGAINST_MAILBOX: ReplyClass[] = ['no_such_user', 'disabled'];

const tuning = corpus.replies as Entry[];
/**
 * Issue 32 is judged on replies labelled by sisimai: its phrase lists, each wrapped in a reply, tuned on
 * (the mapping of its reasons to our classes heads the fixture).
 */
const sisimai = sisimaiPhrases.replies as Entry[];
const heldBack = check.replies as Entry[];
/**
 * Issue 32's held-out rounds already spent: each was written by hand without reading the classifier,
 * measured once, then tuned on (its misses read, rules generalised from them, labels corrected only
 * with a reason in the entry's source). Their figures no longer measure unseen replies; the targets
 * are asserted on them as on any tuned part.
 */
const SPENT: Array<[string, Entry[]]> = [
  // Measured once: false invalid 1.0%, no such user 94.2%, exact 87.8%.
  ['round 1', spentRound1.replies as Entry[]],
  // Written after round 1 was spent, without reading the other sets. Measured once on 2026-11-29: false
  // invalid 0.7%, no such user 89.1%, exact 89.5%; spent the same day (8 labels corrected).
  ['round 2', spentRound2.replies as Entry[]],
  // Written blind to the classifier while round 2 was being spent. Measured on 2026-11-29 three times as rules
  // changed, never tuned on until then: before round 2's tuning landed (false invalid 1.1%, no such user 87.3%,
  // exact 86.4%), after it (1.1%, 88.2%, 87.3%) and after the sisimai part (1.1%, 89.2%, 88.0%); spent the same
  // day (9 labels corrected).
  ['round 3', spentRound3.replies as Entry[]],
  // Written blind to the classifier while round 3 was being spent: 86% verbatim real replies, no invented text.
  // Measured once on 2026-11-29: false invalid 0.0%, no such user 85.5% (59/69), exact 80.4%; spent the same
  // day (19 labels corrected).
  ['round 4', spentRound4.replies as Entry[]],
  // Written blind to the classifier while round 4 was being spent: 86% verbatim real replies, no invented text.
  // Measured once on 2026-11-29: false invalid 4.4% (4/91), no such user 93.5% (72/77), exact 85.4%; spent the
  // same day (15 labels corrected).
  ['round 5', spentRound5.replies as Entry[]],
  // Written blind to the classifier while round 5 was being spent: 77% verbatim real replies, no invented text.
  // Measured once on 2026-11-29: false invalid 0.0% (0/85), no such user 95.0% (38/40), exact 88.5%; spent the
  // same day (5 labels corrected).
  ['round 6', spentRound6.replies as Entry[]],
  // Written blind to the classifier while round 6 was being spent: 77% verbatim real replies, no invented text
  // (165 of 293 candidates dropped as overlap with the earlier sets). Measured once on 2026-11-29: false invalid
  // 2.2% (2/93), no such user 95.7% (22/23), exact 89.1%; spent the same day (2 labels corrected).
  ['round 7', spentRound7.replies as Entry[]],
  // Written blind to the classifier at the same time as round 7, from regional and non-English providers' replies:
  // 40% verbatim, the rest reconstructed (41 from one project's regexes written from real replies, 38 NetEase codes
  // with NetEase's own explanations; no invented text). Measured on 2026-11-29 before round 7 was spent: false
  // invalid 1.9% (2/108), no such user 94.4% (34/36), exact 82.7%; again after it was spent: 0.9% (1/108), 94.4%
  // (34/36), 85.9%; spent the same day (4 labels corrected).
  ['round 8', spentRound8.replies as Entry[]],
  // Written blind to the classifier while round 8 was being spent, from mail servers' and filters' source code and
  // test suites (302 replies, 46% verbatim, the rest a server's format string filled in; 71 of 373 candidates dropped
  // as overlap). Measured once on 2026-11-29: false invalid 3.1% (7/227), no such user 90.6% (58/64), exact 82.8%;
  // spent the same day (9 labels corrected).
  ['round 9', spentRound9.replies as Entry[]],
  // Written blind to the classifier while round 9 was being spent, from two bounce processors' fixtures and provider
  // pages (93 replies, 74% verbatim; 189 of 282 candidates dropped as overlap). Measured once on 2026-11-29: false
  // invalid 0.0% (0/67), no such user 90.9% (20/22), exact 88.2%; spent the same day (1 label corrected).
  ['round 10', spentRound10.replies as Entry[]],
  // Written blind to the classifier while round 10 was being spent, from real bounces and MTA logs kept as test
  // fixtures (Mailman 2, fail2ban, flanker, bounce_email, listmonk, Postfix log parsers; 84 replies, 46% verbatim; 88
  // of 172 candidates dropped as overlap or repeats). Measured once on 2026-11-29: false invalid 1.5% (1/66), no such
  // user 94.1% (16/17), exact 88.1%; spent the same day (4 labels corrected).
  ['round 11', spentRound11.replies as Entry[]],
  // Written blind to the classifier while round 11 was being spent, from real mail logs quoted in forums, mailing
  // lists and log parsers' tests (86 replies, 86% verbatim; 132 of 218 candidates dropped as overlap or repeats).
  // Measured once on 2026-11-29: false invalid 0.0% (0/61), no such user 87.0% (20/23), exact 90.7%; spent the same
  // day (2 labels corrected).
  ['round 12', spentRound12.replies as Entry[]],
  // Written blind to the classifier while round 12 was being spent, from mail logs and transcripts in pastes and
  // issue threads, servers' reply templates and non-English help pages (89 replies, 30% verbatim, the rest with
  // placeholders filled; 150 of 239 candidates dropped as overlap). Measured once on 2026-11-29: false invalid 3.0%
  // (2/67), no such user 94.7% (18/19), exact 85.4%; spent the same day (5 labels corrected).
  ['round 13', spentRound13.replies as Entry[]],
  // Written blind to the classifier while round 13 was being spent, from bug reports in other projects' trackers that
  // quote a bounce, reply constants of Exchange and Zimbra and reply strings in lesser-known servers' source (218
  // replies, 60% verbatim; 153 of 371 candidates dropped as overlap or repeats). Measured once on 2026-11-29: false
  // invalid 2.8% (5/181), no such user 70.4% (19/27), exact 76.1%; spent the same day (10 labels corrected).
  ['round 14', spentRound14.replies as Entry[]],
];

/**
 * Held-out rounds never tuned on: the issue-32 targets are asserted on each, `shortfall` naming those a round
 * was measured short of. Empty between rounds: the next one is added here when it is written.
 */
type Target = 'false invalid' | 'no such user';
const HELD_OUT: Array<[string, Entry[], { shortfall: Target[] }]> = [
  // Written blind to the classifier while round 14 was being spent, from other projects' issues and tests (Roundcube,
  // Nextcloud, MailKit, docker-mailserver, Mailu, mail libraries) and help-desk, hosting and list pages in ten
  // languages (104 replies, 60% verbatim; 264 of 368 candidates dropped as overlap). Measured once on 2026-11-29:
  // false invalid 2.2% (2/90), no such user 100% (13/13), exact 84.6%.
  ['round 15', round15.replies as Entry[], { shortfall: ['false invalid'] }],
];

interface Figures {
  senderMisread: number;
  noSuchUser: number;
  quota: number;
  /** Replies whose expected class is unclassified but that read as evidence against the mailbox. */
  unclassifiedAgainst: number;
  /** Replies that do not say the mailbox is gone or disabled, read as if they did (a false "invalid"). */
  falseInvalid: number;
  accuracy: number;
  misses: string[];
}

function share(entries: Entry[], hit: (entry: Entry, got: ReplyClass) => boolean): number {
  if (entries.length === 0) return 0;
  return entries.filter((entry) => hit(entry, classify(entry))).length / entries.length;
}

function classify(entry: Entry): ReplyClass {
  return classifyReply(buildReply(entry.reply), entry.stage);
}

function measure(entries: Entry[]): Figures {
  const of = (...classes: ReplyClass[]) => entries.filter((entry) => classes.includes(entry.class));
  return {
    senderMisread: share(of(...ABOUT_US), (_, got) => AGAINST_MAILBOX.includes(got)),
    noSuchUser: share(of('no_such_user'), (_, got) => got === 'no_such_user'),
    quota: share(of('full'), (_, got) => got === 'full'),
    unclassifiedAgainst: share(of('unclassified'), (_, got) => [...AGAINST_MAILBOX, 'full'].includes(got)),
    falseInvalid: share(
      entries.filter((entry) => !AGAINST_MAILBOX.includes(entry.class)),
      (_, got) => AGAINST_MAILBOX.includes(got),
    ),
    accuracy: share(entries, (entry, got) => got === entry.class),
    misses: entries
      .filter((entry) => classify(entry) !== entry.class)
      .map((entry) => `${entry.class} ← ${classify(entry)}: ${entry.reply.join(' | ')}`),
  };
}

const percent = (value: number) => `${(value * 100).toFixed(1)}%`;

/**
 * Per kind of dialect (the `kind:` tag of issue 32's entries), per expected class: how many read as
 * that class, and how many sender replies read as evidence against the mailbox.
 */
function byKind(entries: Entry[]): string[] {
  const kinds = new Map<string, Entry[]>();
  for (const entry of entries)
    for (const tag of entry.tags ?? [])
      if (tag.startsWith('kind:')) kinds.set(tag.slice(5), [...(kinds.get(tag.slice(5)) ?? []), entry]);
  if (kinds.size === 0) return ['    (no entry tagged with a kind)'];
  return [...kinds].map(([kind, members]) => {
    const recall = [...new Set(members.map((entry) => entry.class))].map((expected) => {
      const of = members.filter((entry) => entry.class === expected);
      return `${expected} ${of.filter((entry) => classify(entry) === expected).length}/${of.length}`;
    });
    const senders = members.filter((entry) => ABOUT_US.includes(entry.class));
    const misread = senders.filter((entry) => AGAINST_MAILBOX.includes(classify(entry))).length;
    return `    ${kind.padEnd(18)} ${recall.join(' · ')}${senders.length ? ` · sender misread ${misread}/${senders.length}` : ''}`;
  });
}

function dialects(entry: Entry): string[] {
  const reply = buildReply(entry.reply);
  const found = [...(entry.tags ?? [])]
    .filter((tag) => !tag.startsWith('kind:'))
    .map((tag) => (tag.startsWith('non-english:') ? 'non-english' : tag));
  if (entry.reply.length > 1) found.push('multi-line');
  if (reply.code >= 400 && !reply.enhancedCode) found.push('no-enhanced-code');
  return found;
}

function tally(keys: string[]): string {
  const counts = new Map<string, number>();
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([key, count]) => `${key} ${count}`)
    .join(', ');
}

describe('the reply corpus', () => {
  it.each([
    ['tuning', tuning],
    ['held-back', heldBack],
    ['sisimai phrases', sisimai],
    ...SPENT.map(([label, entries]): [string, Entry[]] => [`held-out ${label} (spent, tuned on)`, entries]),
    ...HELD_OUT.map(([label, entries]): [string, Entry[]] => [label, entries]),
  ])('%s part: every entry is well-formed and sourced', (_, entries) => {
    for (const entry of entries) {
      expect(STAGES).toContain(entry.stage);
      expect(CLASSES).toContain(entry.class);
      expect(entry.source.length).toBeGreaterThan(5);
      // RFC 5321: the text after the code is optional ("220" alone ends a greeting).
      expect(entry.reply.every((line) => /^[2-5]\d\d(?:[ -]|$)/.test(line))).toBe(true);
    }
  });

  it('holds at least 400 replies covering every class and dialect', () => {
    const all = [...tuning, ...heldBack];
    expect(all.length).toBeGreaterThanOrEqual(400);
    expect(new Set(all.map((entry) => entry.class))).toEqual(new Set(CLASSES));
    const seen = new Set(all.flatMap(dialects));
    for (const dialect of [
      'multi-line',
      'no-enhanced-code',
      'non-english',
      'contradicting-enhanced',
      'vendor-tag',
      'sender-at-rcpt',
    ])
      expect(seen).toContain(dialect);
    for (const stage of STAGES) expect(all.some((entry) => entry.stage === stage)).toBe(true);
  });
});

describe('reply classification targets (issue 17)', () => {
  const figures = { tuning: measure(tuning), heldBack: measure(heldBack), all: measure([...tuning, ...heldBack]) };

  afterAll(() => {
    const all = [...tuning, ...heldBack];
    const lines = (['all', 'tuning', 'heldBack'] as const).map((part) => {
      const f = figures[part];
      return `  ${part.padEnd(9)} sender replies read as no_such_user/disabled ${percent(f.senderMisread)} (≤ 0.5%) · no such user recognised ${percent(f.noSuchUser)} (≥ 97%) · quota recognised ${percent(f.quota)} (≥ 95%) · exact class ${percent(f.accuracy)}`;
    });
    process.stdout.write(
      [
        `reply corpus: ${all.length} replies (${tuning.length} tuning, ${heldBack.length} held back)`,
        ...lines,
        `  by class: ${tally(all.map((entry) => entry.class))}`,
        `  by stage: ${tally(all.map((entry) => entry.stage))}`,
        `  by dialect: ${tally(all.flatMap(dialects))}`,
        `  by kind (tuning):`,
        ...byKind(tuning),
        `  by kind (held back):`,
        ...byKind(heldBack),
        `  languages: ${tally(all.flatMap((entry) => (entry.tags ?? []).filter((tag) => tag.startsWith('non-english:')).map((tag) => tag.slice(12))))}`,
        // Only the tuning part's misses are shown: the held-back part stays a check, not a guide.
        `  tuning misses (${figures.tuning.misses.length}):`,
        ...figures.tuning.misses.map((miss) => `    ${miss}`),
      ].join('\n') + '\n',
    );
  });

  // The targets hold on the part the rules were tuned on; the held-back part is reported, not tuned to.
  it('replies about the sender read as no_such_user or disabled in at most 0.5%', () => {
    expect(figures.tuning.senderMisread).toBeLessThanOrEqual(0.005);
  });

  it('"no such user" replies recognised in at least 97%', () => {
    expect(figures.tuning.noSuchUser).toBeGreaterThanOrEqual(0.97);
  });

  it('quota replies recognised in at least 95%', () => {
    expect(figures.tuning.quota).toBeGreaterThanOrEqual(0.95);
  });

  it('never reads a refusal it cannot classify as evidence against the mailbox', () => {
    expect(figures.all.unclassifiedAgainst).toBe(0);
  });
});

describe("reply classification on sisimai's phrases (issue 32; tuned on)", () => {
  const figures = measure(sisimai);

  afterAll(() => {
    process.stdout.write(
      [
        `sisimai phrases: ${sisimai.length} replies · false invalid ${percent(figures.falseInvalid)} (0) · no such user recognised ${percent(figures.noSuchUser)} (≥ 99%) · exact class ${percent(figures.accuracy)}`,
        `  by kind:`,
        ...byKind(sisimai),
        `  misses (${figures.misses.length}):`,
        ...figures.misses.map((miss) => `    ${miss}`),
      ].join('\n') + '\n',
    );
  });

  it('reads no reply that does not condemn the mailbox as if it did', () => {
    expect(figures.falseInvalid).toBe(0);
  });

  it('recognises "no such user" in at least 99%', () => {
    expect(figures.noSuchUser).toBeGreaterThanOrEqual(0.99);
  });
});

/** The issue-32 targets on one held-out part. */
function heldOutTargets(label: string, entries: Entry[], shortfall: Target[] = []): void {
  const figures = measure(entries);

  afterAll(() => {
    process.stdout.write(
      [
        `${label}: ${entries.length} replies · false invalid ${percent(figures.falseInvalid)} (≤ 0.5%) · no such user recognised ${percent(figures.noSuchUser)} (≥ 97%) · sender replies read as no_such_user/disabled ${percent(figures.senderMisread)} · exact class ${percent(figures.accuracy)}`,
        `  by class: ${CLASSES.map((expected) => {
          const of = entries.filter((entry) => entry.class === expected);
          return of.length
            ? `${expected} ${of.filter((entry) => classify(entry) === expected).length}/${of.length}`
            : '';
        })
          .filter(Boolean)
          .join(' · ')}`,
        `  by kind:`,
        ...byKind(entries),
        // Counts only: a round's texts stay unseen by whoever tunes the rules until it is spent.
        `  misses: ${tally(figures.misses.map((miss) => miss.slice(0, miss.indexOf(':'))))}`,
      ].join('\n') + '\n',
    );
  });

  // A target a round falls short of is marked so (`it.failing`): the run stays honest and turns red once it is met.
  const target = (name: Target) => (shortfall.includes(name) ? it.failing : it);
  target('false invalid')('reads at most 0.5% of replies that do not condemn the mailbox as if they did', () => {
    expect(figures.falseInvalid).toBeLessThanOrEqual(0.005);
  });

  target('no such user')('recognises "no such user" in at least 97%', () => {
    expect(figures.noSuchUser).toBeGreaterThanOrEqual(0.97);
  });
}

for (const [label, entries] of SPENT)
  describe(`reply classification on held-out ${label} (issue 32; spent, tuned on)`, () => {
    heldOutTargets(`held-out ${label} (spent, tuned on)`, entries);
  });

// Each unspent round in a describe of its own.
for (const [label, entries, { shortfall }] of HELD_OUT)
  describe(`reply classification on held-out ${label} (issue 32; never tuned on)`, () => {
    heldOutTargets(`held-out ${label}`, entries, shortfall);
  });
