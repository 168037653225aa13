import type { Redis } from 'ioredis';
import { luaScript, runScript } from '@mailguard/redis';
import { blockField, STRIKE_MEMORY_MS, type EgressBlock, type EgressBlockStore } from '@mailguard/smtp';

/** How often a process reads what the other probers learnt: a block found by one reaches all within it. */
const REFRESH_MS = 1_000;

/** Deletes the fields read as stale, unless another prober wrote them anew meanwhile. */
const FORGET = luaScript(`
local forgotten = 0
for i = 1, #ARGV, 2 do
  if redis.call('HGET', KEYS[1], ARGV[i]) == ARGV[i + 1] then
    redis.call('HDEL', KEYS[1], ARGV[i])
    forgotten = forgotten + 1
  end
end
return forgotten
`);

/**
 * Egress blocks shared by every prober (and read by the gateway's readiness) through one Redis
 * hash, field `egress|key`. Each process that reads them keeps a view, refreshed every second from
 * its first read on (a process that never asks never polls), and updated at once by its own
 * writes, so a probe asks no Redis on its way out.
 */
export class RedisEgressBlocks implements EgressBlockStore {
  private view = new Map<string, EgressBlock>();
  private readonly key: string;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  /** This process's writes in order, kept while a refresh that began before them may still land. */
  private writes: Array<{ sequence: number; field: string; block: EgressBlock | null }> = [];
  private sequence = 0;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly now: () => number = Date.now,
  ) {
    this.key = `${prefix}prober:blocks`;
  }

  /** Starts the refreshes at the first read; resolves once the first one is done. */
  private watch(): void {
    if (this.timer || this.closed) return;
    this.timer = setInterval(() => void this.refresh(), REFRESH_MS).unref();
    void this.refresh();
  }

  /** Reads the hash; Redis away: the view stays as it was until it is back. */
  async refresh(): Promise<void> {
    const started = this.sequence;
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
        stale.push(field, text);
        continue;
      }
      if (block.until + STRIKE_MEMORY_MS < this.now()) stale.push(field, text);
      else view.set(field, block);
    }
    // Own writes Redis may not have had when it answered: they stand over what it said.
    for (const write of this.writes)
      if (write.sequence > started) {
        if (write.block) view.set(write.field, write.block);
        else view.delete(write.field);
      }
    this.writes = this.writes.filter((write) => write.sequence > started);
    this.view = view;
    if (stale.length > 0) await runScript(this.redis, FORGET, [this.key], stale).catch(() => undefined);
  }

  current(): EgressBlock[] {
    this.watch();
    return [...this.view.values()];
  }

  get(egress: string, key: string): EgressBlock | undefined {
    this.watch();
    return this.view.get(blockField(egress, key));
  }

  private wrote(field: string, block: EgressBlock | null): void {
    this.writes.push({ sequence: ++this.sequence, field, block });
    if (block) this.view.set(field, block);
    else this.view.delete(field);
  }

  async put(block: EgressBlock): Promise<void> {
    const field = blockField(block.egress, block.key);
    this.wrote(field, block);
    await this.redis.hset(this.key, field, JSON.stringify(block));
  }

  async remove(egress: string, key: string): Promise<void> {
    const field = blockField(egress, key);
    this.wrote(field, null);
    await this.redis.hdel(this.key, field);
  }

  /** Whether the view is refreshed now (from the first read until `close`). */
  get refreshing(): boolean {
    return this.timer !== null;
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
