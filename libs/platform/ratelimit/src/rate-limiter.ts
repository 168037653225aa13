import type { Redis } from 'ioredis';
import { luaScript, runScript } from '@mailguard/redis';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  /** Requests left in the window, counting this one. */
  remaining: number;
  /** Seconds until the oldest request in the window leaves it (a slot frees). */
  resetSeconds: number;
}

/** A rolling-window counter: at most `limit` hits per `windowMs` for each key. */
export interface RateLimiter {
  hit(key: string, limit: number, windowMs: number): Promise<RateDecision>;
  /** What a hit now would be told, without counting one (`allowed`: the window has room). */
  peek(key: string, limit: number, windowMs: number): Promise<RateDecision>;
}

/**
 * Sliding log in a sorted set, in one Lua script so that several gateway processes share the count
 * atomically; the script reads Redis's clock so their clocks need not agree.
 */
const SLIDING_WINDOW = luaScript(`
local key = KEYS[1]
local window = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local member = ARGV[3]
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
local allowed = 0
if count < limit then
  redis.call('ZADD', key, now, member)
  count = count + 1
  allowed = 1
end
redis.call('PEXPIRE', key, window)
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
local reset = 0
if oldest[2] then reset = tonumber(oldest[2]) + window - now end
return { allowed, count, reset }
`);

/** The window's state without adding to it, by the same clock. */
const PEEK = luaScript(`
local key = KEYS[1]
local window = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local oldest = redis.call('ZRANGEBYSCORE', key, now - window + 1, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
local count = redis.call('ZCOUNT', key, now - window + 1, '+inf')
local reset = 0
if oldest[2] then reset = tonumber(oldest[2]) + window - now end
local allowed = 0
if count < limit then allowed = 1 end
return { allowed, count, reset }
`);

function decision(allowed: boolean, count: number, limit: number, resetMs: number): RateDecision {
  return {
    allowed,
    limit,
    remaining: Math.max(0, limit - count),
    resetSeconds: Math.max(0, Math.ceil(resetMs / 1000)),
  };
}

export class RedisRateLimiter implements RateLimiter {
  private sequence = 0;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async hit(key: string, limit: number, windowMs: number): Promise<RateDecision> {
    const member = `${process.pid}:${Date.now()}:${this.sequence++}:${Math.random()}`;
    const [allowed, count, reset] = (await runScript(
      this.redis,
      SLIDING_WINDOW,
      [`${this.prefix}rl:${key}`],
      [windowMs, limit, member],
    )) as [number, number, number];
    return decision(allowed === 1, count, limit, reset);
  }

  async peek(key: string, limit: number, windowMs: number): Promise<RateDecision> {
    const [allowed, count, reset] = (await runScript(
      this.redis,
      PEEK,
      [`${this.prefix}rl:${key}`],
      [windowMs, limit],
    )) as [number, number, number];
    return decision(allowed === 1, count, limit, reset);
  }
}

/** How often the embedded limiter forgets keys whose windows are empty. */
const SWEEP_EVERY_MS = 60_000;

/**
 * The same window for the single-process embedded mode. Keys that stop being used (a client IP
 * seen once) are forgotten once their window is empty, so months of clients do not pile up.
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, { hits: number[]; windowMs: number }>();
  private sweptAt: number;

  constructor(private readonly now: () => number = Date.now) {
    this.sweptAt = now();
  }

  /** Keys with hits still in their window. */
  get size(): number {
    return this.windows.size;
  }

  async hit(key: string, limit: number, windowMs: number): Promise<RateDecision> {
    const now = this.now();
    if (now - this.sweptAt >= SWEEP_EVERY_MS) this.sweep(now);
    const hits = (this.windows.get(key)?.hits ?? []).filter((at) => at > now - windowMs);
    const allowed = hits.length < limit;
    if (allowed) hits.push(now);
    if (hits.length > 0) this.windows.set(key, { hits, windowMs });
    else this.windows.delete(key);
    return decision(allowed, hits.length, limit, hits.length > 0 ? hits[0] + windowMs - now : 0);
  }

  async peek(key: string, limit: number, windowMs: number): Promise<RateDecision> {
    const now = this.now();
    const hits = (this.windows.get(key)?.hits ?? []).filter((at) => at > now - windowMs);
    return decision(hits.length < limit, hits.length, limit, hits.length > 0 ? hits[0] + windowMs - now : 0);
  }

  private sweep(now: number): void {
    this.sweptAt = now;
    for (const [key, { hits, windowMs }] of this.windows)
      if (hits[hits.length - 1] <= now - windowMs) this.windows.delete(key);
  }
}
