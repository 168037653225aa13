import { PATTERNS, type DomainModel } from '@mailguard/scoring';
import type { PersonName } from './names';

export interface Candidate {
  localPart: string;
  pattern: string;
  weight: number;
}

/**
 * The local parts to try for a name, without repeats (compound surnames joined): in the order of
 * the domain's learned pattern shares when it has any, else of the pattern table; `weight` is that
 * share.
 */
export function candidates(name: PersonName, domain: DomainModel | null = null): Candidate[] {
  const last = name.last.join('');
  const seen = new Set<string>();
  const out: Candidate[] = [];
  for (const { pattern, weight, build } of PATTERNS) {
    const localPart = build(name.first, last);
    if (seen.has(localPart)) continue;
    seen.add(localPart);
    out.push({ localPart, pattern, weight: domain?.pattern ? domain.shares[pattern] : weight });
  }
  // A stable sort: equal shares keep the table's order.
  return out.sort((a, b) => b.weight - a.weight);
}
