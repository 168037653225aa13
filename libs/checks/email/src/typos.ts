import { BIG_PROVIDERS } from './big-providers';

/**
 * Typo domains: `gmial.com`, `hotmail.cm`, `gmailcom` are slips of a big provider's domain, not
 * throwaway services nor providers of their own (the disposable and free lists carry many such
 * typo-squats). A domain is a typo of a provider when it differs from it by one slip in the name
 * (the first label) and at most one in the ending, or by a left-out dot: a letter swapped with its
 * neighbour, a key next to the right one, a letter left out, a letter typed twice or an extra key
 * next to a neighbour. Those slips are sure, save two kinds that are only loose: a slip a short name
 * does not take (`love.com`, `nail.com`, `sol.com` are real) and an ending that is another country's
 * code (`yahoo.se` is Yahoo's Swedish edition). A loose typo is one only when the typed domain takes
 * no mail (the engine knows that from DNS): a domain that does not exist or takes no mail is nobody's
 * real mailbox, while one that does may well be a company's.
 */

/**
 * Real throwaway services that are a slip away from a provider: they stay disposable and are never
 * "corrected" to someone else's mailbox (`x@yopmail.com` is not `x@ymail.com`).
 */
const THROWAWAY_SERVICES: ReadonlySet<string> = new Set(['yopmail.com', 'yopmail.fr', 'yopmail.net']);

const KEY_ROWS = ['1234567890', 'qwertyuiop', 'asdfghjkl', 'zxcvbnm'];

/** Keys touching each key on a QWERTY keyboard (rows are staggered: a key touches two above, two below). */
const NEIGHBOURS = new Map<string, string>();
KEY_ROWS.forEach((row, r) =>
  [...row].forEach((key, i) => {
    const near = [row[i - 1], row[i + 1], KEY_ROWS[r - 1]?.[i], KEY_ROWS[r - 1]?.[i + 1]];
    near.push(KEY_ROWS[r + 1]?.[i], KEY_ROWS[r + 1]?.[i - 1]);
    NEIGHBOURS.set(key, near.filter((k) => k !== undefined).join(''));
  }),
);

function touching(a: string, b: string): boolean {
  return NEIGHBOURS.get(a)?.includes(b) ?? false;
}

type Slip = 'none' | 'swap' | 'near_key' | 'left_out' | 'doubled' | 'extra_key';

/** The one slip that turns `intended` into `typed`, or null when it takes none of them or more than one. */
function slipBetween(typed: string, intended: string): Slip | null {
  if (typed === intended) return 'none';
  let at = 0;
  while (typed[at] === intended[at]) at++;
  if (typed.length === intended.length) {
    if (typed.slice(at + 1) === intended.slice(at + 1)) return touching(typed[at], intended[at]) ? 'near_key' : null;
    const swapped = typed[at] === intended[at + 1] && typed[at + 1] === intended[at];
    return swapped && typed.slice(at + 2) === intended.slice(at + 2) ? 'swap' : null;
  }
  if (typed.length === intended.length - 1) return typed.slice(at) === intended.slice(at + 1) ? 'left_out' : null;
  if (typed.length !== intended.length + 1 || typed.slice(at + 1) !== intended.slice(at)) return null;
  // The extra key sits at the first difference; a repeated letter may have been typed on either side of it.
  const extra = typed[at];
  if (extra === typed[at - 1] || extra === typed[at + 1]) return 'doubled';
  return touching(extra, typed[at - 1]) || touching(extra, typed[at + 1]) ? 'extra_key' : null;
}

/**
 * What slips a provider's name (its first label) takes surely. A key beside the right one is left to
 * names of five letters or more, as is a left-out letter: from a short name either gives another
 * word, and a company's domain (`love.com`, `nail.com`, `sol.com`, `one.pl`); an extra key needs four.
 * The others are loose.
 */
function nameSlipSure(slip: Slip, name: string): boolean {
  switch (slip) {
    case 'none':
    case 'doubled':
      return true;
    case 'swap':
      return name.length >= 3;
    case 'extra_key':
      return name.length >= 4;
    case 'left_out':
    case 'near_key':
      return name.length >= 5;
  }
}

interface Target {
  domain: string;
  name: string;
  /** The ending after the name: `com`, `co.uk`. */
  ending: string;
  labels: number;
  dotless: string[];
}

const TARGETS: Target[] = [...BIG_PROVIDERS].map((domain) => {
  const dot = domain.indexOf('.');
  const dots = [...domain].flatMap((char, at) => (char === '.' ? [at] : []));
  return {
    domain,
    name: domain.slice(0, dot),
    ending: domain.slice(dot + 1),
    labels: dots.length,
    dotless: dots.map((at) => domain.slice(0, at) + domain.slice(at + 1)),
  };
});

const REGIONS = new Intl.DisplayNames(['en'], { type: 'region' });

/**
 * Whether `tld` is a country other than a country edition's own: yahoo.gr and live.se are editions,
 * not slips of yahoo.fr and live.de (`gmail.co` still is a slip of gmail.com).
 */
function anotherCountry(tld: string, provider: string): boolean {
  const own = provider.slice(provider.lastIndexOf('.') + 1);
  if (tld.length !== 2 || own.length !== 2 || tld === own) return false;
  const code = tld.toUpperCase();
  return REGIONS.of(code) !== code;
}

/** How many slips `domain` is from `target` (1 or 2) and whether they are sure, or null when it is not a typo of it. */
function slipsFrom(domain: string, labels: string[], target: Target): { slips: number; sure: boolean } | null {
  // Two slips change the length by two at most: most providers are ruled out here.
  if (Math.abs(domain.length - target.domain.length) > 2) return null;
  if (target.dotless.includes(domain)) return { slips: 1, sure: true };
  if (labels.length !== target.labels + 1) return null;
  const nameSlip = slipBetween(labels[0], target.name);
  const endingSlip = slipBetween(labels.slice(1).join('.'), target.ending);
  if (nameSlip === null || endingSlip === null) return null;
  return {
    slips: (nameSlip === 'none' ? 0 : 1) + (endingSlip === 'none' ? 0 : 1),
    sure: nameSlipSure(nameSlip, target.name) && !anotherCountry(labels[labels.length - 1], target.domain),
  };
}

/** The providers most people use: of two equally near, one of these is the likelier meant (`hmail.com` is gmail, not ymail). */
const MOST_USED: ReadonlySet<string> = new Set(['gmail.com', 'yahoo.com', 'hotmail.com', 'outlook.com']);

/** A typo of a big provider: `sure`, or loose (a typo only if the typed domain takes no mail). */
export interface Typo {
  provider: string;
  sure: boolean;
}

/**
 * The provider a domain is a typo of: a sure typo before a loose one, then the nearest, then the
 * most used, and none when two are still even.
 */
function nearestProvider(domain: string): Typo | null {
  if (BIG_PROVIDERS.has(domain) || THROWAWAY_SERVICES.has(domain)) return null;
  const labels = domain.split('.');
  let best: Typo | null = null;
  let bestRank = Infinity;
  let tied = false;
  for (const target of TARGETS) {
    const found = slipsFrom(domain, labels, target);
    if (found === null) continue;
    const rank = (found.sure ? 0 : 10) + found.slips * 2 - (MOST_USED.has(target.domain) ? 1 : 0);
    if (rank > bestRank) continue;
    tied = rank === bestRank;
    if (rank < bestRank) [best, bestRank] = [{ provider: target.domain, sure: found.sure }, rank];
  }
  return tied ? null : best;
}

/** Domains whose answer a process remembers: a list repeats its domains, and every check asks twice or more. */
const REMEMBERED = 10_000;
const remembered = new Map<string, Typo | null>();

/** The big provider `asciiDomain` (A-label) is a typo of, and whether surely, or null. */
export function typoOf(asciiDomain: string): Typo | null {
  const domain = asciiDomain.toLowerCase();
  let typo = remembered.get(domain);
  if (typo !== undefined) return typo;
  typo = nearestProvider(domain);
  remembered.set(domain, typo);
  if (remembered.size > REMEMBERED) remembered.delete(remembered.keys().next().value as string);
  return typo;
}

/**
 * The provider to suggest for a typo: a sure one's always, a loose one's only when the typed domain
 * is known to take no mail (`takesMail` false; null when not known, as without DNS).
 */
export function correctionOf(typo: Typo, takesMail: boolean | null): string | null {
  return typo.sure || takesMail === false ? typo.provider : null;
}
