import { FIRST_NAMES, SURNAMES, type Learned } from './names';

/**
 * The corporate address patterns, most used first, with their prior weight: roughly the share of
 * companies using each (as published by finder services and seen in public address sets). The
 * finder builds candidates from it; the domain model learns each domain's own shares from it.
 */
export const PATTERNS: ReadonlyArray<{ pattern: string; weight: number; build(first: string, last: string): string }> =
  [
    { pattern: 'first.last', weight: 0.32, build: (f, l) => `${f}.${l}` },
    { pattern: 'flast', weight: 0.18, build: (f, l) => `${f[0]}${l}` },
    { pattern: 'first', weight: 0.12, build: (f) => f },
    { pattern: 'firstlast', weight: 0.08, build: (f, l) => `${f}${l}` },
    { pattern: 'f.last', weight: 0.06, build: (f, l) => `${f[0]}.${l}` },
    { pattern: 'first_last', weight: 0.04, build: (f, l) => `${f}_${l}` },
    { pattern: 'last', weight: 0.04, build: (_f, l) => l },
    { pattern: 'firstl', weight: 0.04, build: (f, l) => `${f}${l[0]}` },
    { pattern: 'last.first', weight: 0.03, build: (f, l) => `${l}.${f}` },
    { pattern: 'first-last', weight: 0.03, build: (f, l) => `${f}-${l}` },
    { pattern: 'lastf', weight: 0.02, build: (f, l) => `${l}${f[0]}` },
    { pattern: 'fl', weight: 0.01, build: (f, l) => `${f[0]}${l[0]}` },
  ];

const TOTAL = PATTERNS.reduce((sum, { weight }) => sum + weight, 0);
/** The table's weights as shares that sum to 1: the patterns' prior everywhere the model needs one. */
export const PRIOR: Readonly<Record<string, number>> = Object.fromEntries(
  PATTERNS.map(({ pattern, weight }) => [pattern, weight / TOTAL]),
);

/** How a one-word local part in which no name is known fits the one-word patterns (patternFits). */
const UNREAD_WORD: Readonly<Record<string, number>> = {
  flast: 0.8,
  first: 0.5,
  last: 0.4,
  firstlast: 0.3,
  firstl: 0.2,
  lastf: 0.15,
};

/** A local part read as a word in which no name is known (`founder`, `xqvorn`): any one-word pattern may have made it. */
export const unread = (fits: Readonly<Record<string, number>>) =>
  Object.keys(fits).length === Object.keys(UNREAD_WORD).length &&
  Object.entries(UNREAD_WORD).every(([pattern, value]) => fits[pattern] === value);

/** Extra characters a surname may carry in a local part. */
const MAX_SURNAME = 20;

/**
 * Which patterns could have produced a local part when the person's name is not known, each with
 * how well it fits (0–1). The lists of common given names and surnames tell `john.smith`
 * (first.last) from `smith.john` (last.first) and `johnsmith` (firstlast) from `jsmith` (flast). Empty for local
 * parts that are no name at all (digits, three or more parts, role words are the caller's concern).
 */
export function patternFits(localPart: string, learned: Learned = new Set()): Record<string, number> {
  const local = localPart.toLowerCase();
  const two = /^([a-z]+)([._-])([a-z]+)$/.exec(local);
  if (two) {
    const [, a, separator, b] = two;
    if (b.length > MAX_SURNAME || a.length > MAX_SURNAME) return {};
    if (separator === '.' && a.length === 1 && b.length >= 2) return { 'f.last': 1 };
    if (a.length < 2 || b.length < 2) return {};
    if (separator === '_') return { first_last: 1 };
    if (separator === '-') return { 'first-last': 1 };
    const firstA = FIRST_NAMES.has(a);
    const firstB = FIRST_NAMES.has(b);
    if (firstA && !firstB) return { 'first.last': 1, 'last.first': 0.05 };
    if (firstB && !firstA) return { 'first.last': 0.05, 'last.first': 1 };
    // Both or neither a given name (thomas.james, ngozi.okeke): the surname list may still tell.
    if (SURNAMES.has(b) && !SURNAMES.has(a)) return { 'first.last': 1, 'last.first': 0.3 };
    if (SURNAMES.has(a) && !SURNAMES.has(b)) return { 'first.last': 0.3, 'last.first': 1 };
    return { 'first.last': 0.6, 'last.first': 0.4 };
  }
  if (!/^[a-z]{2,}$/.test(local) || local.length > MAX_SURNAME + 10) return {};
  if (local.length === 2) return { fl: 1 };
  // One word: the name lists say where a given name, a surname and an initial sit; a known name
  // counts fully, a guessed surname less.
  const fits: Record<string, number> = {};
  const add = (pattern: string, value: number) => (fits[pattern] = Math.max(fits[pattern] ?? 0, value));
  // A learned name (domain-model.ts) may be a given name or a surname: it counts as either.
  const first = (word: string) => FIRST_NAMES.has(word) || learned.has(word);
  const surname = (word: string) => SURNAMES.has(word) || learned.has(word);
  if (first(local)) add('first', 1);
  if (surname(local)) add('last', 1);
  if (surname(local.slice(1))) add('flast', 1);
  if (surname(local.slice(0, -1))) add('lastf', 1);
  for (let cut = local.length - 1; cut >= 2; cut--) {
    if (first(local.slice(0, cut))) {
      if (local.length - cut === 1) add('firstl', 1);
      else add('firstlast', surname(local.slice(cut)) ? 1 : 0.6);
    } else if (local.length - cut >= 2 && surname(local.slice(cut))) {
      // A given name the list lacks before a known surname (keanuadams).
      add('firstlast', 0.6);
    }
  }
  // Nothing known: any one-word pattern, flast the common one.
  if (Object.keys(fits).length === 0) return { ...UNREAD_WORD };
  // Many names are both (James, Chen, Lee): the other reading stays possible.
  if (fits.first && !fits.last) add('last', 0.1);
  if (fits.last && !fits.first) add('first', 0.3);
  if (fits.lastf && !fits.firstl) add('firstl', 0.3);
  return fits;
}

/**
 * The pattern that most likely produced a local part where addresses follow `shares` (each fit
 * weighed by its share; ties go to the more used pattern), and how much likelier the local part is
 * there than in general. With the general shares it is simply the best-fitting pattern. Null for
 * local parts no pattern fits.
 */
export function readPattern(
  localPart: string,
  shares: Readonly<Record<string, number>> = PRIOR,
  learned?: Learned,
): { pattern: string; likelihoodRatio: number } | null {
  const fits = patternFits(localPart, learned);
  let best: string | null = null;
  let here = 0;
  let general = 0;
  for (const { pattern } of PATTERNS) {
    const fit = fits[pattern] ?? 0;
    if (fit === 0) continue;
    here += fit * shares[pattern];
    general += fit * PRIOR[pattern];
    if (!best || fit * shares[pattern] > (fits[best] ?? 0) * shares[best]) best = pattern;
  }
  return best ? { pattern: best, likelihoodRatio: here / general } : null;
}
