import { lookupFailure, type DnsResolver } from './resolver';

export interface MxHost {
  exchange: string;
  priority: number;
  addresses: string[];
}

export interface MailDomain {
  /** false: NXDOMAIN; null: DNS could not say (SERVFAIL, timeout). */
  exists: boolean | null;
  /** MX records as published, by priority. */
  records: Array<{ exchange: string; priority: number }>;
  nullMx: boolean;
  /** No MX: the domain's own A/AAAA serve as its mail host (RFC 5321 §5.1). */
  implicit: boolean;
  /** Hosts to try, in priority order, with their addresses; hosts that do not resolve are left out. */
  hosts: MxHost[];
  /** `ok`: hosts to probe; `no_mail`: the domain cannot receive mail; `error`: DNS could not say. */
  status: 'ok' | 'nxdomain' | 'no_mail' | 'error';
}

async function addressesOf(
  resolver: DnsResolver,
  name: string,
): Promise<{ addresses: string[]; failure: 'nxdomain' | 'nodata' | 'error' | null }> {
  const [v4, v6] = await Promise.allSettled([resolver.resolve4(name), resolver.resolve6(name)]);
  const addresses = [...(v4.status === 'fulfilled' ? v4.value : []), ...(v6.status === 'fulfilled' ? v6.value : [])];
  if (addresses.length > 0) return { addresses, failure: null };
  const failures = [v4, v6].map((r) => (r.status === 'rejected' ? lookupFailure(r.reason) : 'nodata'));
  if (failures.includes('error')) return { addresses, failure: 'error' };
  return { addresses, failure: failures.every((f) => f === 'nxdomain') ? 'nxdomain' : 'nodata' };
}

/** Domain existence and its mail hosts: checks 2 and 3 of docs/api.md. `domain` in A-label form. */
export async function lookupMailDomain(resolver: DnsResolver, domain: string): Promise<MailDomain> {
  const empty = { records: [], nullMx: false, implicit: false, hosts: [] };
  let records: Array<{ exchange: string; priority: number }>;
  try {
    records = await resolver.resolveMx(domain);
  } catch (error) {
    const failure = lookupFailure(error);
    if (failure === 'nxdomain') return { ...empty, exists: false, status: 'nxdomain' };
    if (failure === 'error') return { ...empty, exists: null, status: 'error' };
    records = [];
  }

  const sorted = [...records]
    .map(({ exchange, priority }) => ({ exchange: exchange.replace(/\.$/, '').toLowerCase(), priority }))
    .sort((a, b) => a.priority - b.priority || a.exchange.localeCompare(b.exchange));

  // RFC 7505: a single MX of "." says the domain accepts no mail.
  if (sorted.length === 1 && sorted[0].exchange === '') {
    return { ...empty, exists: true, records: sorted, nullMx: true, status: 'no_mail' };
  }

  if (sorted.length === 0) {
    const own = await addressesOf(resolver, domain);
    if (own.failure === 'error') return { ...empty, exists: true, status: 'error' };
    if (own.addresses.length === 0) return { ...empty, exists: true, status: 'no_mail' };
    return {
      ...empty,
      exists: true,
      implicit: true,
      hosts: [{ exchange: domain, priority: 0, addresses: own.addresses }],
      status: 'ok',
    };
  }

  const resolved = await Promise.all(
    sorted
      .filter((mx) => mx.exchange !== '')
      .map(async (mx) => ({ mx, ...(await addressesOf(resolver, mx.exchange)) })),
  );
  const hosts = resolved.filter((host) => host.addresses.length > 0).map(({ mx, addresses }) => ({ ...mx, addresses }));
  if (hosts.length > 0) return { exists: true, records: sorted, nullMx: false, implicit: false, hosts, status: 'ok' };
  // Every MX host failed to resolve: only a definite "no such host" everywhere means no mail.
  const status = resolved.some((host) => host.failure === 'error') ? 'error' : 'no_mail';
  return { exists: true, records: sorted, nullMx: false, implicit: false, hosts: [], status };
}
