import DISPOSABLE_LIST from 'disposable-email-domains';
import DISPOSABLE_WILDCARDS from 'disposable-email-domains/wildcard.json';
import { DOMAINS as FREE_OR_DISPOSABLE } from 'free-email-domains-list';
import { blacklist as mailcheckerList } from 'mailchecker';
import { BIG_PROVIDERS } from './big-providers';
import { typoOf } from './typos';

/**
 * Address lists that do not need the network: disposable domains (mailchecker's ~56,000 and
 * disposable-email-domains' ~120,000, plus its wildcard parents) and free consumer providers. Parent
 * domains are walked: a subdomain of a disposable domain is disposable. A sure typo of a big
 * provider (typos.ts) is neither, though the lists carry many (`gmial.com`, `gmail.co`): it is a
 * slip, and the answer says so with a suggestion. A loose one keeps what the lists say: whether it
 * is a typo rests on DNS, which these lists do not read.
 */

const DISPOSABLE = new Set<string>([...mailcheckerList(), ...DISPOSABLE_LIST, ...DISPOSABLE_WILDCARDS]);

export const DISPOSABLE_DOMAIN_COUNT = DISPOSABLE.size;

function* selfAndParents(domain: string): Generator<string> {
  const labels = domain.toLowerCase().split('.');
  for (let i = 0; i < labels.length - 1; i++) yield labels.slice(i).join('.');
}

/** `asciiDomain` in A-label form. */
export function isDisposableDomain(asciiDomain: string): boolean {
  if (typoOf(asciiDomain)?.sure) return false;
  for (const candidate of selfAndParents(asciiDomain)) {
    if (BIG_PROVIDERS.has(candidate)) return false;
    if (DISPOSABLE.has(candidate)) return true;
  }
  return false;
}

/** Free consumer mailbox providers (the source list mixes in disposables; those are taken out). */
export function isFreeDomain(asciiDomain: string): boolean {
  const domain = asciiDomain.toLowerCase();
  if (BIG_PROVIDERS.has(domain)) return true;
  // The list look-up first: the typo matcher is only asked of the domains the list holds.
  return FREE_OR_DISPOSABLE.has(domain) && !typoOf(domain)?.sure && !isDisposableDomain(domain);
}
