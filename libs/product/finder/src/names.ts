import { getDomain } from 'tldts';

export interface PersonName {
  /** Lower-case ASCII letters and digits only. */
  first: string;
  /** Surname parts, in order ("van der berg" → ["van", "der", "berg"]; "garcía-márquez" → ["garcia", "marquez"]). */
  last: string[];
}

/** Diacritics folded (José → jose), apostrophes and dots dropped, lower case; other separators become spaces. */
export function foldName(value: string): string {
  return value
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/ß/g, 'ss')
    .replace(/[øØ]/g, 'o')
    .replace(/[łŁ]/g, 'l')
    .replace(/[æÆ]/g, 'ae')
    .toLowerCase()
    .replace(/['’`.]/g, '')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/**
 * A person's name from first and last name, or from a full name (first word: the given name;
 * the rest: the surname, particles included). Null when either part is missing.
 */
export function parseName(input: { firstName?: string; lastName?: string; fullName?: string }): PersonName | null {
  if (input.firstName !== undefined || input.lastName !== undefined) {
    const first = foldName(input.firstName ?? '').split(' ')[0] ?? '';
    const last = foldName(input.lastName ?? '')
      .split(' ')
      .filter(Boolean);
    return first && last.length > 0 ? { first, last } : null;
  }
  const words = foldName(input.fullName ?? '')
    .split(' ')
    .filter(Boolean);
  return words.length >= 2 ? { first: words[0], last: words.slice(1) } : null;
}

/** The registrable domain of a domain or URL ("https://www.shop.example.co.uk/x" → "example.co.uk"); null when there is none. */
export function registrableDomain(input: string): string | null {
  const trimmed = input.trim().toLowerCase();
  if (!trimmed || /\s/.test(trimmed)) return null;
  return getDomain(/^[a-z]+:\/\//.test(trimmed) ? trimmed : `http://${trimmed}`);
}
