import { Resolver } from 'node:dns/promises';

/** The DNS look-ups the checks need; injected so every worker, the CLI and the tests share one code path. */
export interface DnsResolver {
  resolveMx(name: string): Promise<Array<{ exchange: string; priority: number }>>;
  resolve4(name: string): Promise<string[]>;
  resolve6(name: string): Promise<string[]>;
  resolveTxt(name: string): Promise<string[][]>;
}

export interface ResolverOptions {
  /** `ip:port` entries; null for the system's resolvers. */
  servers: string[] | null;
  timeoutMs?: number;
  tries?: number;
}

export function createResolver(options: ResolverOptions): DnsResolver {
  const resolver = new Resolver({ timeout: options.timeoutMs ?? 4_000, tries: options.tries ?? 2 });
  if (options.servers) resolver.setServers(options.servers);
  return resolver;
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
