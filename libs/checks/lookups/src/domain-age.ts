import type { HttpGet } from './http';

export interface DomainAge {
  createdAt: string | null;
  ageDays: number | null;
}

const UNKNOWN: DomainAge = { createdAt: null, ageDays: null };
const IANA_BOOTSTRAP = 'https://data.iana.org/rdap/dns.json';
const DAY_MS = 86_400_000;

interface RdapDomain {
  events?: Array<{ eventAction?: string; eventDate?: string }>;
}

/**
 * Check 8: the registration date from RDAP. With a base URL every domain goes there; without one
 * the IANA bootstrap file says which registry serves the TLD (fetched once per process).
 */
export class DomainAgeLookup {
  private bootstrap: Promise<Map<string, string>> | null = null;

  constructor(
    private readonly http: HttpGet,
    private readonly baseUrl: string | null,
    private readonly timeoutMs = 4_000,
    private readonly now: () => number = Date.now,
  ) {}

  private async serviceFor(domain: string): Promise<string | null> {
    if (this.baseUrl) return this.baseUrl;
    this.bootstrap ??= this.http(IANA_BOOTSTRAP, {
      signal: AbortSignal.timeout(this.timeoutMs),
      accept: 'application/json',
    })
      .then(async (response) => {
        const body = (await response.json()) as { services?: Array<[string[], string[]]> };
        const services = new Map<string, string>();
        for (const [tlds, urls] of body.services ?? [])
          for (const tld of tlds) if (urls[0]) services.set(tld.toLowerCase(), urls[0].replace(/\/+$/, ''));
        return services;
      })
      .catch(() => {
        this.bootstrap = null;
        return new Map<string, string>();
      });
    const tld = domain.slice(domain.lastIndexOf('.') + 1);
    return (await this.bootstrap).get(tld) ?? null;
  }

  /** `domain` in A-label form. Any failure reads as unknown (nulls), never as "new". */
  async lookup(domain: string): Promise<DomainAge> {
    try {
      const service = await this.serviceFor(domain);
      if (!service) return UNKNOWN;
      const response = await this.http(`${service}/domain/${encodeURIComponent(domain)}`, {
        signal: AbortSignal.timeout(this.timeoutMs),
        accept: 'application/rdap+json, application/json',
      });
      if (response.status !== 200) return UNKNOWN;
      const body = (await response.json()) as RdapDomain;
      const registration = body.events?.find((event) => event.eventAction === 'registration')?.eventDate;
      const created = registration ? Date.parse(registration) : NaN;
      if (Number.isNaN(created)) return UNKNOWN;
      return { createdAt: registration as string, ageDays: Math.max(0, Math.floor((this.now() - created) / DAY_MS)) };
    } catch {
      return UNKNOWN;
    }
  }
}
