import type { Redis } from 'ioredis';
import { luaScript, runScript } from '@mailguard/redis';

/**
 * Counters per UTC day, several taken together: a request passes only when every one of its
 * counters is under its limit, and then all of them count it (the widget's public tier: per device
 * and per IP, docs/widget.md).
 */
export interface DailyQuota {
  /**
   * `counters`: [key, limit] pairs. Resolves to whether it passed, the smallest room left and, when
   * refused, the index of the first counter that was full.
   */
  take(counters: Array<[string, number]>): Promise<QuotaDecision>;
}

export interface QuotaDecision {
  allowed: boolean;
  remaining: number;
  exhausted: number | null;
}

function utcDay(now = Date.now()): string {
  return new Date(now).toISOString().slice(0, 10);
}

/** KEYS: the counters; ARGV: their limits, then the seconds a counter lives. Returns allowed, remaining and the full counter (0-based). */
const TAKE = luaScript(`
local remaining = nil
for i, key in ipairs(KEYS) do
  local left = tonumber(ARGV[i]) - tonumber(redis.call('GET', key) or '0')
  if left <= 0 then return { 0, 0, i - 1 } end
  if remaining == nil or left < remaining then remaining = left end
end
local ttl = tonumber(ARGV[#KEYS + 1])
for _, key in ipairs(KEYS) do
  redis.call('INCR', key)
  redis.call('EXPIRE', key, ttl)
end
return { 1, remaining - 1, -1 }
`);

/** A day and a little more: a counter outlives its day only long enough for clocks to disagree. */
const TTL_SECONDS = 26 * 3_600;

export class RedisDailyQuota implements DailyQuota {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async take(counters: Array<[string, number]>): Promise<QuotaDecision> {
    const day = utcDay();
    const keys = counters.map(([key]) => `${this.prefix}quota:${day}:${key}`);
    const [allowed, remaining, exhausted] = (await runScript(this.redis, TAKE, keys, [
      ...counters.map(([, limit]) => limit),
      TTL_SECONDS,
    ])) as [number, number, number];
    return { allowed: allowed === 1, remaining, exhausted: exhausted < 0 ? null : exhausted };
  }
}

/** The same counters for the single-process embedded mode; yesterday's are dropped as the day turns. */
export class MemoryDailyQuota implements DailyQuota {
  private day = '';
  private readonly counts = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  async take(counters: Array<[string, number]>): Promise<QuotaDecision> {
    const day = utcDay(this.now());
    if (day !== this.day) {
      this.day = day;
      this.counts.clear();
    }
    const room = counters.map(([key, limit]) => limit - (this.counts.get(key) ?? 0));
    const exhausted = room.findIndex((left) => left <= 0);
    if (exhausted >= 0) return { allowed: false, remaining: 0, exhausted };
    for (const [key] of counters) this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    return { allowed: true, remaining: Math.min(...room) - 1, exhausted: null };
  }
}
