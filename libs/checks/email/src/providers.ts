import { run as spellCheck, POPULAR_DOMAINS } from '@zootools/email-spell-checker';
import DISPOSABLE_LIST from 'disposable-email-domains';
import DISPOSABLE_WILDCARDS from 'disposable-email-domains/wildcard.json';
import { DOMAINS as FREE_OR_DISPOSABLE } from 'free-email-domains-list';
import { blacklist as mailcheckerList } from 'mailchecker';

/**
 * Address lists that do not need the network: disposable domains (mailchecker's ~56,000 and
 * disposable-email-domains' ~120,000, plus its wildcard parents), free consumer providers, and typo
 * suggestions. Parent domains are walked: a subdomain of a disposable domain is disposable.
 */

/**
 * Big consumer providers: never disposable even if a list update names them (those lists have
 * carried such false positives before), always free, and safe targets for typo corrections.
 */
const BIG_PROVIDERS = new Set([
  'gmail.com',
  'googlemail.com',
  'yahoo.com',
  'ymail.com',
  'outlook.com',
  'hotmail.com',
  'live.com',
  'msn.com',
  'aol.com',
  'icloud.com',
  'me.com',
  'mac.com',
  '126.com',
  '163.com',
  'yeah.net',
  'qq.com',
  'sina.com',
  'sohu.com',
  'aliyun.com',
  'bluewin.ch',
  'gmx.de',
  'gmx.net',
  'gmx.com',
  'web.de',
  't-online.de',
  'mail.ru',
  'yandex.ru',
  'yandex.com',
  'protonmail.com',
  'proton.me',
  'zoho.com',
  'mail.com',
  'fastmail.com',
  'orange.fr',
  'free.fr',
  'laposte.net',
  'libero.it',
  'seznam.cz',
  'wp.pl',
  'naver.com',
  'daum.net',
  'rediffmail.com',
  'uol.com.br',
]);

const DISPOSABLE = new Set<string>([...mailcheckerList(), ...DISPOSABLE_LIST, ...DISPOSABLE_WILDCARDS]);

export const DISPOSABLE_DOMAIN_COUNT = DISPOSABLE.size;

function* selfAndParents(domain: string): Generator<string> {
  const labels = domain.toLowerCase().split('.');
  for (let i = 0; i < labels.length - 1; i++) yield labels.slice(i).join('.');
}

/** `asciiDomain` in A-label form. */
export function isDisposableDomain(asciiDomain: string): boolean {
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
  return FREE_OR_DISPOSABLE.has(domain) && !isDisposableDomain(domain);
}

const WELL_KNOWN = new Set([
  ...POPULAR_DOMAINS,
  ...BIG_PROVIDERS,
  'hotmail.co.uk',
  'yahoo.co.uk',
  'yahoo.fr',
  'live.co.uk',
]);

/** Domains whose correction a process remembers: the spell check is a scan of every well-known domain. */
const REMEMBERED_CORRECTIONS = 10_000;
const corrections = new Map<string, string | null>();

/** The well-known domain a domain is a typo of, or null; by domain alone, remembered (a list repeats its domains). */
function correctedDomain(domain: string): string | null {
  let corrected = corrections.get(domain);
  if (corrected !== undefined) return corrected;
  const suggestion = spellCheck({ email: `a@${domain}` });
  corrected =
    suggestion && WELL_KNOWN.has(suggestion.domain) && suggestion.domain !== domain ? suggestion.domain : null;
  corrections.set(domain, corrected);
  if (corrections.size > REMEMBERED_CORRECTIONS) corrections.delete(corrections.keys().next().value as string);
  return corrected;
}

/**
 * A corrected address only when confident: the fix lands on a well-known mail domain and the
 * given domain is not itself one (so `acme.test` is never "corrected" to `acme.de`).
 */
export function suggestCorrection(localPart: string, domain: string): string | null {
  if (WELL_KNOWN.has(domain)) return null;
  const corrected = correctedDomain(domain);
  return corrected === null ? null : `${localPart}@${corrected}`;
}
