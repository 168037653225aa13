import type { PersonName } from './names';

/**
 * The corporate address patterns, most used first, with their prior weight: roughly the share of
 * companies using each (as published by finder services and seen in public address sets). The
 * order decides among several accepted candidates; the weights rank guesses at catch-all domains.
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

export interface Candidate {
  localPart: string;
  pattern: string;
  weight: number;
}

/** The local parts to try for a name, in pattern order, without repeats (compound surnames joined). */
export function candidates(name: PersonName): Candidate[] {
  const last = name.last.join('');
  const seen = new Set<string>();
  const out: Candidate[] = [];
  for (const { pattern, weight, build } of PATTERNS) {
    const localPart = build(name.first, last);
    if (seen.has(localPart)) continue;
    seen.add(localPart);
    out.push({ localPart, pattern, weight });
  }
  return out;
}
