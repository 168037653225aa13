import { Resolver } from 'node:dns/promises';

/** The DNS look-ups the checks need; injected so every worker, the CLI and the tests share one code path. */
export interface DnsResolver {
  resolveMx(name: string): Promise<Array<{ exchange: string; priority: number }>>;
  resolve4(name: string): Promise<string[]>;
  resolve6(name: string): Promise<string[]>;
  resolveTxt(name: string): Promise<string[][]>;
  /** PTR names of an address (the prober's own, for its readiness). */
  reverse(ip: string): Promise<string[]>;
}

export interface ResolverOptions {
  /** `ip:port` entries; null for the system's resolvers. */
  servers: string[] | null;
  timeoutMs?: number;
  tries?: number;
  /** The clock of the address cache's TTLs (tests move it). */
  now?: () => number;
}

/** Longest an address answer is kept, whatever its TTL says. */
const MAX_TTL_MS = 3_600_000;
/**
 * How long "no such name" and "no records of this type" are kept. Node does not expose the SOA
 * minimum that RFC 2308 would take, so a minute: long enough for a burst of one host's domains.
 */
const NEGATIVE_TTL_MS = 60_000;
/** Names kept at once; the oldest make way (a few big providers serve most domains). */
const MAX_NAMES = 10_000;

type AddressAnswer = { expiresAt: number; addresses: Promise<string[]> };

/**
 * A and AAAA answers of mail hosts, kept for their records' TTL (a TTL of 0 is not kept: a name
 * that says so wants asking every time), and the negative ones (NXDOMAIN, NODATA) for
 * NEGATIVE_TTL_MS; a look-up that could not be answered (SERVFAIL, timeout) is not kept. The same
 * few hosts serve most domains: a fresh domain at one of them needs only its MX look-up. Concurrent
 * look-ups of one name share one query.
 */
class AddressCache {
  private readonly answers = new Map<string, AddressAnswer>();

  constructor(private readonly now: () => number) {}

  lookup(
    type: 'A' | 'AAAA',
    name: string,
    ask: () => Promise<Array<{ address: string; ttl: number }>>,
  ): Promise<string[]> {
    const key = `${type} ${name.toLowerCase()}`;
    const kept = this.answers.get(key);
    if (kept && kept.expiresAt > this.now()) return kept.addresses;
    if (kept) this.answers.delete(key);
    const pending: AddressAnswer = { expiresAt: Infinity, addresses: Promise.resolve([]) };
    pending.addresses = ask().then(
      (records) => {
        const ttlMs =
          records.length > 0 ? Math.min(MAX_TTL_MS, ...records.map((record) => record.ttl * 1000)) : NEGATIVE_TTL_MS;
        this.keep(key, pending, ttlMs > 0 ? this.now() + ttlMs : null);
        return records.map((record) => record.address);
      },
      (error: unknown) => {
        const negative = lookupFailure(error) !== 'error';
        this.keep(key, pending, negative ? this.now() + NEGATIVE_TTL_MS : null);
        throw error;
      },
    );
    if (this.answers.size >= MAX_NAMES) this.answers.delete(this.answers.keys().next().value as string);
    this.answers.set(key, pending);
    return pending.addresses;
  }

  /** The answer stays until `expiresAt`, or goes now (null); unless a newer look-up took its place. */
  private keep(key: string, answer: AddressAnswer, expiresAt: number | null): void {
    if (this.answers.get(key) !== answer) return;
    if (expiresAt === null) this.answers.delete(key);
    else answer.expiresAt = expiresAt;
  }
}

export function createResolver(options: ResolverOptions): DnsResolver {
  const resolver = new Resolver({ timeout: options.timeoutMs ?? 4_000, tries: options.tries ?? 2 });
  if (options.servers) resolver.setServers(options.servers);
  const addresses = new AddressCache(options.now ?? Date.now);
  return {
    // Exactly {exchange, priority}: Node 24 adds `type`, which would reach every result's checks.mx.records.
    resolveMx: async (name) =>
      (await resolver.resolveMx(name)).map(({ exchange, priority }) => ({ exchange, priority })),
    resolveTxt: (name) => resolver.resolveTxt(name),
    reverse: (ip) => resolver.reverse(ip),
    resolve4: (name) => addresses.lookup('A', name, () => resolver.resolve4(name, { ttl: true })),
    resolve6: (name) => addresses.lookup('AAAA', name, () => resolver.resolve6(name, { ttl: true })),
  };
}

/**
 * How a failed look-up reads: the name does not exist (NXDOMAIN), exists without records of that
 * type (NODATA), or could not be answered (SERVFAIL, timeout, refused: never "does not exist").
 */
export type LookupFailure = 'nxdomain' | 'nodata' | 'error';

export function lookupFailure(error: unknown): LookupFailure {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === 'ENOTFOUND') return 'nxdomain';
  if (code === 'ENODATA') return 'nodata';
  return 'error';
}
