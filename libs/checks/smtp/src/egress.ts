import { isIP } from 'node:net';
import { getDomain } from 'tldts';
import type { EgressConfig } from '@mailguard/config';
import { localConnector, socksConnector, type Connector } from './client';
import { providerRunsFleet } from './provider';

/** One way out to port 25: the host's route, a bound source address, or a SOCKS5 proxy. */
export interface Egress {
  id: string;
  /** The providers (or MX domains) it alone serves; null: every one. */
  providers: string[] | null;
  /** The source address it binds (`local:<ip>`), which is then its own public address when that is public. */
  localAddress: string | null;
  /** The address family it can reach (a bound source address has one); null: either. */
  family: 4 | 6 | null;
  connector: Connector;
}

export function buildEgress(config: EgressConfig): Egress {
  return {
    id: config.id,
    providers: config.providers,
    localAddress: config.localAddress,
    family: config.localAddress ? (isIP(config.localAddress) as 4 | 6) : null,
    connector: config.proxy ? socksConnector(config.proxy) : localConnector(config.localAddress),
  };
}

/**
 * What a block is remembered by: the provider when one fleet of its hosts serves all of its domains
 * (Gmail refuses an address for every domain it hosts), else the MX hosts' own registrable domain
 * (a customer's gateway, or a server of its own at a hosting company, refuses by rules of its own).
 */
export function blockKey(provider: string | null, mxHosts: string[]): string {
  if (provider && providerRunsFleet(provider)) return provider;
  const host = (mxHosts[0] ?? '').toLowerCase();
  return getDomain(host, { allowPrivateDomains: true }) ?? host;
}

/** A block as every prober knows it: until `until` (epoch ms) the egress is not used for `key`. */
export interface EgressBlock {
  egress: string;
  key: string;
  /** What the server said (or that connections failed), for operators. */
  reason: string;
  /** Epoch ms. */
  since: number;
  until: number;
  /** Blocks in a row: each one that comes back after its back-off doubles the next. */
  strikes: number;
}

/**
 * Where blocks are kept: this process's memory, or Redis for every prober at once. `current` is
 * synchronous (a probe asks it on its way out); a shared store keeps a view it refreshes.
 */
export interface EgressBlockStore {
  current(): EgressBlock[];
  get(egress: string, key: string): EgressBlock | undefined;
  put(block: EgressBlock): Promise<void>;
  remove(egress: string, key: string): Promise<void>;
  close(): void;
}

/** How long a block's strikes are remembered after it ended, unless a probe gets through first. */
export const STRIKE_MEMORY_MS = 24 * 3_600_000;

export function blockField(egress: string, key: string): string {
  return `${egress}|${key}`;
}

export class MemoryEgressBlocks implements EgressBlockStore {
  private readonly blocks = new Map<string, EgressBlock>();

  constructor(private readonly now: () => number = Date.now) {}

  current(): EgressBlock[] {
    for (const [field, block] of this.blocks)
      if (block.until + STRIKE_MEMORY_MS < this.now()) this.blocks.delete(field);
    return [...this.blocks.values()];
  }

  get(egress: string, key: string): EgressBlock | undefined {
    return this.blocks.get(blockField(egress, key));
  }

  async put(block: EgressBlock): Promise<void> {
    this.blocks.set(blockField(block.egress, block.key), block);
  }

  async remove(egress: string, key: string): Promise<void> {
    this.blocks.delete(blockField(egress, key));
  }

  close(): void {
    this.blocks.clear();
  }
}

export interface EgressObserver {
  blocked?(block: EgressBlock): void;
  cleared?(egress: string, key: string): void;
}

/** Back-offs double with each block in a row, up to this many times the first. */
const MAX_BACKOFF_FACTOR = 8;

/**
 * The prober's egresses and what providers think of them. A probe goes out through the first
 * usable egress for its key: those reserved for the key first, then the general ones, in the order
 * of SMTP_EGRESS (one warm address does the work; the next takes over when it is blocked). An
 * egress a provider refused is left out for that provider for a back-off, then tried again.
 */
export class EgressPool {
  private readonly observers: EgressObserver[] = [];

  constructor(
    readonly egresses: Egress[],
    private readonly store: EgressBlockStore,
    private readonly blockMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  observe(observer: EgressObserver): void {
    this.observers.push(observer);
  }

  /** Those that may carry a probe for `key`, blocked or not, in the order they are tried. */
  eligible(key: string): Egress[] {
    const reserved = this.egresses.filter((egress) => egress.providers?.includes(key));
    const general = this.egresses.filter((egress) => egress.providers === null);
    return [...reserved, ...general];
  }

  /** The block in force for an egress at `key`, if any. */
  blockOf(egress: string, key: string): EgressBlock | null {
    const block = this.store.get(egress, key);
    return block && block.until > this.now() ? block : null;
  }

  /** Eligible and not blocked now. */
  usable(key: string): Egress[] {
    return this.eligible(key).filter((egress) => !this.blockOf(egress.id, key));
  }

  /** Blocks in force now. */
  blocks(): EgressBlock[] {
    const now = this.now();
    return this.store.current().filter((block) => block.until > now);
  }

  /**
   * `key` refused the egress: it is left out for the back-off. A block already in force stays as
   * it is (concurrent probes meet the same refusal); one that comes back after its back-off doubles.
   */
  async block(egress: string, key: string, reason: string): Promise<EgressBlock> {
    const now = this.now();
    const previous = this.store.get(egress, key);
    if (previous && previous.until > now) return previous;
    // A block that ended long ago is not a block in a row.
    const strikes = (previous && previous.until + STRIKE_MEMORY_MS >= now ? previous.strikes : 0) + 1;
    const factor = Math.min(MAX_BACKOFF_FACTOR, 2 ** (strikes - 1));
    const block: EgressBlock = { egress, key, reason, since: now, until: now + this.blockMs * factor, strikes };
    await this.store.put(block);
    for (const observer of this.observers) observer.blocked?.(block);
    return block;
  }

  /**
   * A probe through the egress was answered at `key`: the strikes of a block that has run out are
   * forgotten (one in force stays: the answer may come from a probe that began before it).
   */
  async through(egress: string, key: string): Promise<void> {
    const block = this.store.get(egress, key);
    if (!block || block.until > this.now()) return;
    await this.store.remove(egress, key);
    for (const observer of this.observers) observer.cleared?.(egress, key);
  }

  close(): void {
    this.store.close();
  }
}
