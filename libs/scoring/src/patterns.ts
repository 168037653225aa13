import { FIRST_NAMES } from './first-names';

/**
 * The corporate address patterns, most used first, with their prior weight: roughly the share of
 * companies using each (as published by finder services and seen in public address sets). The
 * finder builds candidates from it; the domain model learns each domain's own shares from it.
 */
export const PATTERNS: ReadonlyArray<{ pattern: string; weight: number; build(first: string, last: string): string }> = [
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
export const PRIOR: Readonly<Record<string, number>> = Object.fromEntries(PATTERNS.map(({ pattern, weight }) => [pattern, weight / TOTAL]));

/** Extra characters a surname may carry in a local part. */
const MAX_SURNAME = 20;

/**
 * Which patterns could have produced a local part when the person's name is not known, each with
 * how well it fits (0–1). The list of common given names tells `john.smith` (first.last) from
 * `smith.john` (last.first) and `johnsmith` (firstlast) from `jsmith` (flast). Empty for local
 * parts that are no name at all (digits, three or more parts, role words are the caller's concern).
 */
export function patternFits(localPart: string): Record<string, number> {
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
    return { 'first.last': 0.6, 'last.first': 0.4 };
  }
  if (!/^[a-z]{2,}$/.test(local) || local.length > MAX_SURNAME + 10) return {};
  if (local.length === 2) return { fl: 1 };
  if (FIRST_NAMES.has(local)) return { first: 1, last: 0.1 };
  for (let cut = local.length - 1; cut >= 2; cut--) {
    if (!FIRST_NAMES.has(local.slice(0, cut))) continue;
    return local.length - cut === 1 ? { firstl: 1 } : { firstlast: 1, flast: 0.1 };
  }
  // One letter and a surname, a surname alone, or a surname and an initial: flast is the common one.
  return { flast: 0.8, last: 0.4, lastf: 0.15 };
}

/** The pattern that fits a local part best (ties go to the more used pattern), or null. */
export function likeliestPattern(localPart: string): string | null {
  const fits = patternFits(localPart);
  let best: string | null = null;
  for (const { pattern } of PATTERNS) if ((fits[pattern] ?? 0) > (best ? fits[best] : 0)) best = pattern;
  return best;
}
