import { getDomain } from 'tldts';
import { lookupFailure, type DnsResolver } from './resolver';

export interface Authentication {
  spf: { present: boolean; record: string | null };
  dkim: { present: boolean; selectors: string[] };
  dmarc: { present: boolean; policy: string | null };
}

/** DKIM keys live under selectors of the sender's choosing; these are the ones in common use. */
export const DKIM_SELECTORS = [
  'google',
  'selector1',
  'selector2',
  'k1',
  'k2',
  'default',
  's1',
  's2',
  'dkim',
  'mail',
  'smtp',
  'mx',
  'everlytickey1',
  'mandrill',
  'zoho',
  'protonmail',
  'fm1',
  'sig1',
];

async function txt(resolver: DnsResolver, name: string): Promise<string[]> {
  try {
    return (await resolver.resolveTxt(name)).map((chunks) => chunks.join(''));
  } catch {
    return [];
  }
}

/** The `v=DMARC1` records at `_dmarc.<name>`: null when DNS could not answer (SERVFAIL, timeout). */
async function dmarcRecords(resolver: DnsResolver, name: string): Promise<string[] | null> {
  try {
    const records = (await resolver.resolveTxt(`_dmarc.${name}`)).map((chunks) => chunks.join('').trim());
    return records.filter((record) => /^v=DMARC1\s*(;|$)/i.test(record));
  } catch (error) {
    return lookupFailure(error) === 'error' ? null : [];
  }
}

/** A tag's value from a DMARC record (`p=reject; sp=none` → `p` → `reject`), lower case. */
function dmarcTag(record: string, tag: string): string | null {
  for (const part of record.split(';')) {
    const [name, ...value] = part.split('=');
    if (value.length > 0 && name.trim().toLowerCase() === tag) return value.join('=').trim().toLowerCase() || null;
  }
  return null;
}

/**
 * DMARC policy discovery (RFC 7489 §6.6.3): the record at the domain, else the one at its
 * organisational domain, whose `sp` (else `p`) is the policy for its subdomains. Several records,
 * or none left after both look-ups, mean no policy; so does a DNS failure, which is not "none" but
 * cannot be reported as a policy either.
 */
async function lookupDmarc(resolver: DnsResolver, domain: string): Promise<Authentication['dmarc']> {
  let records = await dmarcRecords(resolver, domain);
  let fromOrganisation = false;
  const organisation = getDomain(domain, { allowPrivateDomains: true });
  if (records?.length === 0 && organisation && organisation !== domain) {
    records = await dmarcRecords(resolver, organisation);
    fromOrganisation = true;
  }
  if (records?.length !== 1) return { present: false, policy: null };
  const policy = (fromOrganisation ? dmarcTag(records[0], 'sp') : null) ?? dmarcTag(records[0], 'p');
  return { present: true, policy };
}

/** Check 9: SPF record, DMARC policy (with the organisational-domain fallback), DKIM keys on common selectors. */
export async function lookupAuthentication(resolver: DnsResolver, domain: string): Promise<Authentication> {
  const [spfRecords, dmarc, dkim] = await Promise.all([
    txt(resolver, domain),
    lookupDmarc(resolver, domain),
    Promise.all(
      DKIM_SELECTORS.map(async (selector) => {
        const records = await txt(resolver, `${selector}._domainkey.${domain}`);
        return records.some((record) => /(^|;)\s*p=[A-Za-z0-9+/=]+/.test(record)) ? selector : null;
      }),
    ),
  ]);
  const spf = spfRecords.find((record) => /^v=spf1(\s|$)/i.test(record.trim())) ?? null;
  const selectors = dkim.filter((selector): selector is string => selector !== null);
  return {
    spf: { present: spf !== null, record: spf },
    dkim: { present: selectors.length > 0, selectors },
    dmarc,
  };
}
