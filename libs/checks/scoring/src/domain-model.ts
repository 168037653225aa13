import { isRoleLocalPart } from '@mailguard/email';
import { localPartFlaws } from './local-part';
import { nameLikeness, readsAsNames, slips } from './names';
import { patternFits, PATTERNS, PRIOR, readPattern, unread } from './patterns';
import type { Signal } from './signal';

/**
 * What the service has learned about one domain's addresses, and how it moves the confidence of a
 * new address there (Bayesian updating, deterministic for the same evidence).
 *
 * - **Pattern shares**: each address known to exist (verified at a strict domain, registered with
 *   Gravatar, found by the finder, reported delivered; each address once, its latest word) is
 *   evidence for the patterns that could have produced it (`patternFits`; the finder's hits name
 *   theirs). The shares are the posterior mean of a
 *   Dirichlet whose prior is the pattern table's weights with the strength of one address,
 *   fitted by a few rounds of expectation–maximisation (an ambiguous local part counts for its
 *   patterns in proportion to how likely each already is at the domain).
 * - **Queried local parts** (checked at the domain before, by checks, lists and the widget) are weak
 *   evidence of the pattern before any report: people mostly check addresses that exist or look
 *   like them. Each query follows the domain's pattern or, as often, people's general habits (a
 *   wrong guess, a made-up name); the posterior over which pattern the domain uses, tempered so that
 *   a few junk queries cannot make one (queriedPattern), replaces the table's weights as the prior
 *   the known addresses update. Flawed, role and known local parts are left out, guesses at one
 *   person in several patterns count once, and once customers reported on the domain the queries are
 *   not read. They never count as addresses that exist: no names, typos or other forms are learned
 *   from them (but see typo_of_queried).
 * - **learned_pattern** (log-odds, ±2.5 at most, once an address is known or MIN_QUERIES local parts
 *   were queried): how much likelier the
 *   local part is under this domain's shares than under the general ones — ln(Σ fit·share here /
 *   Σ fit·share in general), which is ln(share here / share in general) for a local part only one
 *   pattern fits. Real staff follow the domain's pattern; made-up addresses follow people's general
 *   habits. An ambiguous local part (`solveig`: a given name, or s + veig?) is read the way the
 *   domain writes addresses.
 * - **pattern_delivery_rate**: once customers reported on other addresses of the address's pattern
 *   at the domain (plain ones: no avatar, no flaw such as a misspelt name, which carry their own
 *   signal), their delivery rate becomes the address's prior: a Beta posterior centred on
 *   what the base rate, the name shape, the domain's facts and `learned_pattern` say, worth four
 *   reports, updated by the delivered and bounced ones. It replaces those signals (they are its
 *   prior); what is particular to the address (avatar, junk, typo, its own report) still moves it.
 * - **reported_delivered / reported_bounced** (±5): the address itself was reported, or verified.
 * - **typo_of_known** (−3): an address known to exist here with two neighbouring letters swapped
 *   or one left out (`j.smiht`, `jsmth` beside `j.smith`, `jsmith`): the commonest slips in a form.
 *   Other one-letter differences are not taken for typos: `asmith` and `bsmith` are two people.
 * - **typo_of_queried** (−1.5, before any report): a local part one slip (names.ts `slips`) from one
 *   queried here before that is spelt more like names (names.ts `nameLikeness`: `zeynep-sazbo` beside
 *   `zeynep-szabo`) and that does not read as names itself. Of the pair, the better spelt is what
 *   was meant; whichever came first, only the other is marked. Weak, and no flaw: the queried one may
 *   be a guess too, and the better spelt of a pair is not always the one meant (a name the lists lack).
 * - **other_form_of_known** (−1.5): someone known to exist here written in another pattern
 *   (`njohansson`, `johansson.nina` beside `nina.johansson`): a guess at a known person's address.
 * - **names** learned: the name parts of addresses known to exist, here and at other domains (the
 *   caller passes those: libs/product/feedback DomainKnowledge.named). A name the lists lack is a name all
 *   the same once someone with it exists: the local part reads as names (`name_pattern`), its
 *   pattern is read (`kostrowski`: flast), and a swap in it is a misspelt name (`misspelt_name`).
 */
export type EvidenceSource = 'verified' | 'avatar' | 'finder' | 'feedback';

export interface Evidence {
  /** Lower-case local part. */
  localPart: string;
  outcome: 'exists' | 'bounced';
  source: EvidenceSource;
  /** Known for finder hits (the name was given); else inferred. */
  pattern: string | null;
}

export interface DomainModel {
  /** The most likely pattern, null while no address is known. */
  pattern: string | null;
  /** Its posterior share, 0–100 (0 while nothing is known). */
  confidence: number;
  /** How many known addresses it rests on. */
  addresses: number;
  /** Known addresses with a name pattern, whichever. */
  named: number;
  /** Queried local parts that counted for the shares (queryFits). */
  queried: number;
  shares: Record<string, number>;
  /** Reported addresses by the pattern they follow here: those nothing else speaks for or against. */
  reports: Record<string, Array<{ localPart: string; delivered: boolean }>>;
  known: Map<string, { outcome: Evidence['outcome']; source: EvidenceSource }>;
  /** Name parts (four letters or more) of addresses known to exist, here and at other domains. */
  names: Set<string>;
  /** The addresses known to exist here written in other patterns (otherForms). */
  otherForms: Set<string>;
  /** The newest queried local parts with no flaw or role word, not known here, until the domain is reported on (queryFits reads them). */
  asked: Set<string>;
}

const PRIOR_STRENGTH = 1;
/** How many reports the general signals are worth against the reports on a pattern at a domain. */
const PRIOR_REPORTS = 4;
const ROUNDS = 5;
const MIN_ADDRESSES = 1;
const LIMIT = 2.5;
const KNOWN_WEIGHT = 5;
const TYPO_WEIGHT = -3;
const OTHER_FORM_WEIGHT = -1.5;
const TYPO_QUERIED_WEIGHT = -1.5;
/** How much of its likelihood a queried local part lends the domain's pattern (queries are guesses too). */
const QUERY_WEIGHT = 0.6;
/** The share of queries taken to follow the domain's pattern; the rest follow people's general habits. */
const STAFF_SHARE = 0.5;
/** The table's weights kept in the pattern the queries tell. */
const QUERY_FLOOR = 0.01;
/** Queried local parts it takes, with no address known, before the domain's pattern is read from them. */
const MIN_QUERIES = 3;
/** The newest queried local parts per domain the model reads (the service keeps no more per domain). */
export const MAX_QUERIES = 200;

/** The name parts of an address with a separator (`kasimir.berg`): four letters or more, the shorter ones are initials or ambiguous. */
const nameParts = (local: string) =>
  /[._-]/.test(local) ? local.split(/[._-]/).filter((part) => /^[a-z]{4,}$/.test(part)) : [];

const clamp = (value: number) => Math.round(Math.max(-LIMIT, Math.min(LIMIT, value)) * 100) / 100;

export function learnDomain(
  evidence: Evidence[],
  elsewhere: Iterable<string> = [],
  queried: Iterable<string> = [],
): DomainModel {
  const known: DomainModel['known'] = new Map();
  const named = new Map<string, string>();
  const vouched = new Set<string>();
  for (const item of evidence) {
    known.set(item.localPart, { outcome: item.outcome, source: item.source });
    if (item.source !== 'feedback') vouched.add(item.localPart);
    if (item.pattern && item.pattern in PRIOR) named.set(item.localPart, item.pattern);
  }
  const existing = [...known].filter(([, { outcome }]) => outcome === 'exists').map(([local]) => local);
  const names = new Set([...elsewhere, ...existing].flatMap(nameParts));
  const fits = existing
    .map((local) => (named.has(local) ? { [named.get(local) as string]: 1 } : patternFits(local, names)))
    .filter((fit) => Object.keys(fit).length > 0);
  // Before feedback, what the queries say of the domain's pattern is where the known addresses start
  // from. Reports are the better word: once there are any, the queries are not read.
  const reported = evidence.some((item) => item.source === 'feedback');
  const recent = reported ? [] : recentQueries(queried, known, names);
  const asked = queryFits(recent, names);
  const prior = asked.length > 0 ? queriedPattern(asked) : PRIOR;
  let shares = { ...prior };
  let counts: Record<string, number> = {};
  for (let round = 0; round < ROUNDS && fits.length > 0; round++) {
    counts = {};
    for (const fit of fits) {
      const total = Object.entries(fit).reduce((sum, [pattern, value]) => sum + shares[pattern] * value, 0);
      for (const [pattern, value] of Object.entries(fit))
        counts[pattern] = (counts[pattern] ?? 0) + (shares[pattern] * value) / total;
    }
    shares = Object.fromEntries(
      PATTERNS.map(({ pattern }) => [
        pattern,
        (PRIOR_STRENGTH * prior[pattern] + (counts[pattern] ?? 0)) / (PRIOR_STRENGTH + fits.length),
      ]),
    );
  }
  const best = PATTERNS.reduce(
    (top, { pattern }) => (shares[pattern] > shares[top] ? pattern : top),
    PATTERNS[0].pattern,
  );
  // Each address counts once, with its latest report, under the pattern it follows here. An address
  // with an avatar or a flaw has its own signal; counting it too would lend its fate to the plain ones.
  const reports: DomainModel['reports'] = {};
  for (const [local, { outcome, source }] of known) {
    const pattern =
      source === 'feedback' && !vouched.has(local) && localPartFlaws(local).length === 0
        ? readPattern(local, shares, names)?.pattern
        : undefined;
    if (pattern) (reports[pattern] ??= []).push({ localPart: local, delivered: outcome === 'exists' });
  }
  return {
    otherForms: otherForms(existing, shares, names),
    asked: new Set(recent),
    pattern: fits.length > 0 ? best : null,
    confidence: fits.length > 0 ? Math.round(shares[best] * 100) : 0,
    addresses: fits.length > 0 ? Math.round(counts[best] ?? 0) : 0,
    named: fits.length,
    queried: asked.length,
    shares,
    reports,
    known,
    names,
  };
}

/**
 * Which pattern the domain uses, as the queried local parts tell it: a posterior over the patterns
 * (prior: the table's weights) where each query follows the domain's pattern with probability
 * STAFF_SHARE and people's general habits otherwise, its likelihood tempered by QUERY_WEIGHT. A
 * query is at most (STAFF_SHARE + (1 − STAFF_SHARE)·g) / ((1 − STAFF_SHARE)·g) likelier under one
 * pattern than another (g: how usual its shape is in general), to the power QUERY_WEIGHT — about 2.3
 * for a first.last query: a few junk queries cannot make a pattern, a domain's many real ones do.
 * A little of the table's weights stays (QUERY_FLOOR): no pattern is ruled out by guesses.
 */
function queriedPattern(asked: Array<Record<string, number>>): Record<string, number> {
  const logs = PATTERNS.map(({ pattern }) => {
    let sum = Math.log(PRIOR[pattern]);
    for (const fit of asked) {
      const general = Object.entries(fit).reduce((total, [other, value]) => total + PRIOR[other] * value, 0);
      sum += QUERY_WEIGHT * Math.log(STAFF_SHARE * (fit[pattern] ?? 0) + (1 - STAFF_SHARE) * general);
    }
    return sum;
  });
  const top = Math.max(...logs);
  const odds = logs.map((value) => Math.exp(value - top));
  const total = odds.reduce((sum, value) => sum + value, 0);
  return Object.fromEntries(
    PATTERNS.map(({ pattern }, index) => [
      pattern,
      (1 - QUERY_FLOOR) * (odds[index] / total) + QUERY_FLOOR * PRIOR[pattern],
    ]),
  );
}

/** The newest MAX_QUERIES local parts asked, as the service reads them, but those known here, role words and flawed ones. */
function recentQueries(queried: Iterable<string>, known: DomainModel['known'], names: Set<string>): string[] {
  return [...new Set([...queried].reverse())]
    .slice(0, MAX_QUERIES)
    .filter((local) => !known.has(local) && !isRoleLocalPart(local) && localPartFlaws(local, names).length === 0);
}

/**
 * The queried local parts that say something of the domain's pattern: not known here already (their
 * evidence counts), no role word, no flaw (junk says nothing of anyone's pattern), one a pattern
 * fits for a name in it (a word with no name known, `founder`, fits every one-word pattern: it tells
 * none). Of the newest MAX_QUERIES asked, each counts once, and one person once: guesses at someone
 * in several patterns (`nina.johansson`, `njohansson`, `johansson.nina`: otherForms) are one query,
 * of which at most one is the address (the newest counts). Queries only weigh each other here: they
 * are never taken for addresses that exist.
 */
function queryFits(recent: string[], names: Set<string>): Array<Record<string, number>> {
  const fits: Array<Record<string, number>> = [];
  const guessed = new Set<string>();
  for (const local of recent) {
    if (guessed.has(local)) continue;
    const fit = patternFits(local, names);
    if (Object.keys(fit).length === 0 || unread(fit)) continue;
    fits.push(fit);
    for (const form of otherForms([local], PRIOR, names)) guessed.add(form);
  }
  return fits;
}

/** Reports on the other addresses of this address's pattern at the domain (its own report is counted apart). */
function patternReports(local: string, model: DomainModel): { delivered: number; bounced: number } {
  const pattern = readPattern(local, model.shares, model.names)?.pattern;
  const others = (pattern ? (model.reports[pattern] ?? []) : []).filter((report) => report.localPart !== local);
  const delivered = others.filter((report) => report.delivered).length;
  return { delivered, bounced: others.length - delivered };
}

/**
 * The delivery rate of the address's pattern at the domain, as log-odds, once it was reported on:
 * a Beta posterior whose prior is `prior` (what the other signals say, 0–1) worth PRIOR_REPORTS
 * reports, so that a few reports move it and many decide it. Null without reports.
 */
export function patternRate(localPart: string, model: DomainModel, prior: number): Signal | null {
  const reports = patternReports(localPart.toLowerCase(), model);
  if (reports.delivered + reports.bounced === 0) return null;
  const rate = (reports.delivered + PRIOR_REPORTS * prior) / (reports.delivered + reports.bounced + PRIOR_REPORTS);
  return { signal: 'pattern_delivery_rate', weight: Math.round(Math.log(rate / (1 - rate)) * 100) / 100 };
}

/** What the domain's evidence says about this very address: its own report, a typo or another form of a known one, a typo of a queried one. */
export function addressSignals(localPart: string, model: DomainModel): Signal[] {
  const local = localPart.toLowerCase();
  const own = model.known.get(local);
  if (own)
    return [
      own.outcome === 'exists'
        ? { signal: 'reported_delivered', weight: KNOWN_WEIGHT }
        : { signal: 'reported_bounced', weight: -KNOWN_WEIGHT },
    ];
  if (isTypoOfKnown(local, model)) return [{ signal: 'typo_of_known', weight: TYPO_WEIGHT }];
  if (model.otherForms.has(local)) return [{ signal: 'other_form_of_known', weight: OTHER_FORM_WEIGHT }];
  return isTypoOfAsked(local, model) ? [{ signal: 'typo_of_queried', weight: TYPO_QUERIED_WEIGHT }] : [];
}

/** `local` is one slip from a local part queried here that is spelt more like names (typo_of_queried). */
function isTypoOfAsked(local: string, model: DomainModel): boolean {
  // Nothing queried to be read (none yet, or the domain reported on): no slip to spell out.
  if (model.asked.size === 0 || readsAsNames(local, 1, model.names)) return false;
  const own = nameLikeness(local);
  return slips(local).some((meant) => model.asked.has(meant) && nameLikeness(meant) > own);
}

/**
 * Someone known to exist here, written in another pattern (`nina.johansson` known: `njohansson`,
 * `johansson.nina`, `nina_johansson`; `njohansson` known: `n.johansson`, `johanssonn`;
 * `ninajohansson` known: `nina.johansson`): a guess at a known person's address, which a company
 * gives each person once (an alias is possible, hence no flaw). A known address is read in the
 * domain's patterns as given name and surname (an initial where the pattern has one); its forms are
 * the patterns that need no more than that, but a name alone (`nina`, `johansson`: someone else's too).
 */
const INITIAL_FIRST = new Set(['flast', 'f.last', 'lastf']);
const WHOLE = new Set(['first.last', 'first_last', 'first-last', 'last.first']);
/** What a person whose both names are known may be written as: every pattern but a name alone. */
const BOTH_NAMES = new Set(
  PATTERNS.map(({ pattern }) => pattern).filter((pattern) => !['first', 'last', 'fl'].includes(pattern)),
);
const letters = (local: string) => local.replace(/[._-]/g, '');

function otherForms(existing: string[], shares: Readonly<Record<string, number>>, names: Set<string>): Set<string> {
  const forms = new Set<string>();
  const add = (first: string, last: string, patterns: Set<string>) => {
    for (const { pattern, build } of PATTERNS) if (patterns.has(pattern)) forms.add(build(first, last));
  };
  for (const local of existing) {
    const pattern = readPattern(local, shares, names)?.pattern;
    const parts = local.split(/[._-]/);
    // Which part is the given name is not always sure (ngozi.okeke): both orders.
    if (pattern && WHOLE.has(pattern)) for (const [a, b] of [parts, [...parts].reverse()]) add(a, b, BOTH_NAMES);
    if (pattern === 'flast') add(local[0], local.slice(1), INITIAL_FIRST);
    if (pattern === 'f.last') add(parts[0], parts[1], INITIAL_FIRST);
    if (pattern === 'lastf') add(local[local.length - 1], local.slice(0, -1), INITIAL_FIRST);
    // The same letters with a separator put in (`ninajohansson`: `nina.johansson`, `nina_johansson`).
    const word = letters(local);
    for (let cut = 2; cut <= word.length - 2; cut++)
      for (const separator of '._-') forms.add(word.slice(0, cut) + separator + word.slice(cut));
    forms.add(word);
  }
  for (const local of existing) forms.delete(local);
  return forms;
}

/** How the address's pattern stands at this domain against people's general habits, once an address is known (the posterior says how much one address tells). */
export function learnedPattern(localPart: string, model: DomainModel): Signal | null {
  const reading = readPattern(localPart.toLowerCase(), model.shares, model.names);
  if (!reading || (model.named < MIN_ADDRESSES && model.queried < MIN_QUERIES)) return null;
  return { signal: 'learned_pattern', weight: clamp(Math.log(reading.likelihoodRatio)) };
}

/**
 * `local` is a known existing address at the domain with two neighbouring characters swapped or a
 * letter left out (`j.smiht`, `jsmth` beside `j.smith`, `jsmith`; names.ts `slips`): the commonest
 * slips in a form. Other one-letter differences are not taken for typos: `asmith` and `bsmith` are two people.
 */
function isTypoOfKnown(local: string, model: DomainModel): boolean {
  return slips(local).some((meant) => model.known.get(meant)?.outcome === 'exists');
}
