import type { Redis } from 'ioredis';
import { luaScript, runScript } from '@mailguard/redis';
import { CoolingDownError, GateAbortedError, type CoolDownReason, type SessionGate } from '@mailguard/smtp';

/**
 * Takes a slot when the host has one: leases are scored by their expiry, so the slots of a killed
 * prober come back by themselves. Returns 1 (taken), 0 (full) or the cool-down reason.
 */
const ACQUIRE = luaScript(`
local cooling = redis.call('GET', KEYS[2])
if cooling then return cooling end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
`);

/** The per-MX session cap and cool-downs of every smtp-worker process together, in Redis. */
export class RedisSessionGate implements SessionGate {
  private sequence = 0;
  /** How often a caller had to wait for a slot (a metric). */
  waits = 0;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly limit: number,
    /** Longest a session may hold its slot before the slot is presumed lost. */
    private readonly leaseMs: number,
  ) {}

  async acquire(host: string, signal?: AbortSignal): Promise<() => void> {
    const holder = `${process.pid}:${this.sequence++}:${Math.random().toString(36).slice(2)}`;
    const slots = `${this.prefix}mx:slots:${host}`;
    for (let attempt = 0; ; attempt++) {
      if (signal?.aborted) throw new GateAbortedError();
      const answer = (await runScript(this.redis, ACQUIRE, [slots, `${this.prefix}mx:cool:${host}`], [this.limit, this.leaseMs, holder])) as number | string;
      if (answer === 1) return () => void this.redis.zrem(slots, holder).catch(() => undefined);
      if (typeof answer === 'string') throw new CoolingDownError(host, answer as CoolDownReason);
      this.waits++;
      // Jittered polling: slots free at the pace of SMTP dialogues, tens of milliseconds at least.
      await new Promise((resolve) => setTimeout(resolve, Math.min(200, 10 + attempt * 10) * (0.5 + Math.random())));
    }
  }

  async coolDown(host: string, ms: number, reason: CoolDownReason): Promise<void> {
    await this.redis.set(`${this.prefix}mx:cool:${host}`, reason, 'PX', ms);
  }
}
