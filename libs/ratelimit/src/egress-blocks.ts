import type { Redis } from 'ioredis';
import { blockField, STRIKE_MEMORY_MS, type EgressBlock, type EgressBlockStore } from '@mailguard/smtp';

/** How often a process reads what the other probers learnt: a block found by one reaches all within it. */
const REFRESH_MS = 1_000;

/**
 * Egress blocks shared by every prober (and read by the gateway's readiness) through one Redis
 * hash, field `egress|key`. Each process keeps a view that it refreshes every second and updates at
 * once with its own writes, so a probe asks no Redis on its way out.
 */
export class RedisEgressBlocks implements EgressBlockStore {
  private view = new Map<string, EgressBlock>();
  private readonly key: string;
  private readonly timer: NodeJS.Timeout;
  private closed = false;
  /** Local writes so far: a refresh that began before one would undo it, and is dropped. */
  private writes = 0;
  /** The first refresh: done once Redis answered (or failed to). */
  readonly ready: Promise<void>;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly now: () => number = Date.now,
  ) {
    this.key = `${prefix}prober:blocks`;
    this.ready = this.refresh();
    this.timer = setInterval(() => void this.refresh(), REFRESH_MS).unref();
  }

  /** Reads the hash; Redis away: the view stays as it was until it is back. */
  async refresh(): Promise<void> {
    const writes = this.writes;
    let raw: Record<string, string>;
    try {
      raw = await this.redis.hgetall(this.key);
    } catch {
      return;
    }
    const view = new Map<string, EgressBlock>();
    const stale: string[] = [];
    for (const [field, text] of Object.entries(raw)) {
      let block: EgressBlock;
      try {
        block = JSON.parse(text) as EgressBlock;
      } catch {
        stale.push(field);
        continue;
      }
      if (block.until + STRIKE_MEMORY_MS < this.now()) stale.push(field);
      else view.set(field, block);
    }
    // Read before this process's own write reached Redis: the next refresh has both.
    if (this.writes !== writes) return;
    this.view = view;
    if (stale.length > 0) await this.redis.hdel(this.key, ...stale).catch(() => undefined);
  }

  current(): EgressBlock[] {
    return [...this.view.values()];
  }

  get(egress: string, key: string): EgressBlock | undefined {
    return this.view.get(blockField(egress, key));
  }

  async put(block: EgressBlock): Promise<void> {
    const field = blockField(block.egress, block.key);
    this.writes++;
    this.view.set(field, block);
    await this.redis.hset(this.key, field, JSON.stringify(block));
  }

  async remove(egress: string, key: string): Promise<void> {
    const field = blockField(egress, key);
    this.writes++;
    this.view.delete(field);
    await this.redis.hdel(this.key, field);
  }

  /** Whether the view is still refreshed (until `close`). */
  get refreshing(): boolean {
    return !this.closed;
  }

  close(): void {
    this.closed = true;
    clearInterval(this.timer);
  }
}
