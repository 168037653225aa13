import getDmarcRecord from 'mailauth/lib/dmarc/get-dmarc-record';
import type { DnsResolver } from './resolver';

export interface Authentication {
  spf: { present: boolean; record: string | null };
  dkim: { present: boolean; selectors: string[] };
  dmarc: { present: boolean; policy: string | null };
}

/** DKIM keys live under selectors of the sender's choosing; these are the ones in common use. */
export const DKIM_SELECTORS = [
  'google', 'selector1', 'selector2', 'k1', 'k2', 'default', 's1', 's2', 'dkim', 'mail', 'smtp', 'mx', 'everlytickey1', 'mandrill', 'zoho', 'protonmail', 'fm1', 'sig1',
];

async function txt(resolver: DnsResolver, name: string): Promise<string[]> {
  try {
    return (await resolver.resolveTxt(name)).map((chunks) => chunks.join(''));
  } catch {
    return [];
  }
}

/** Check 9: SPF record, DMARC policy (with the organisational-domain fallback), DKIM keys on common selectors. */
export async function lookupAuthentication(resolver: DnsResolver, domain: string): Promise<Authentication> {
  const [spfRecords, dmarc, dkim] = await Promise.all([
    txt(resolver, domain),
    getDmarcRecord(domain, (name: string, type: string) => (type === 'TXT' ? resolver.resolveTxt(name) : Promise.resolve([]))).catch(() => false as const),
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
    dmarc: dmarc ? { present: true, policy: typeof dmarc.p === 'string' ? dmarc.p.toLowerCase() : null } : { present: false, policy: null },
  };
}
