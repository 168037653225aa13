import type { Redis } from 'ioredis';
import { luaScript, runScript } from '@mailguard/redis';
import { CoolingDownError, GateAbortedError, LEASE_GRACE_MS, LeaseBook, type CoolDownReason, type GateObserver, type GateSnapshot, type SessionGate, type SlotLease, type SlotRequest } from '@mailguard/smtp';

/**
 * Takes a slot when the host has one: leases are scored by their expiry (the session's deadline and
 * a grace), so the slots of a killed prober come back by themselves. The set lives as long as its
 * longest lease. Returns 1 (taken), 0 (full) or the cool-down reason.
 */
const ACQUIRE = luaScript(`
local cooling = redis.call('GET', KEYS[2])
if cooling then return cooling end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then
  local ttl = tonumber(ARGV[2])
  redis.call('ZADD', KEYS[1], now + ttl, ARGV[3])
  if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
  return 1
end
return 0
`);

/** The per-MX session cap and cool-downs of every smtp-worker process together, in Redis. */
export class RedisSessionGate implements SessionGate {
  private sequence = 0;
  readonly leases: LeaseBook;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly limit: number,
    graceMs = LEASE_GRACE_MS,
  ) {
    this.leases = new LeaseBook(graceMs);
  }

  observe(observer: GateObserver): void {
    this.leases.observe(observer);
  }

  snapshot(): GateSnapshot {
    return this.leases.snapshot();
  }

  async acquire(host: string, { until, signal }: SlotRequest): Promise<SlotLease> {
    const holder = `${process.pid}:${this.sequence++}:${Math.random().toString(36).slice(2)}`;
    const slots = `${this.prefix}mx:slots:${host}`;
    const started = Date.now();
    for (let attempt = 0; ; attempt++) {
      if (signal?.aborted) throw new GateAbortedError();
      // Relative to Redis's clock (TIME): prober clocks need not agree with each other.
      const ttl = this.leases.ttl(until);
      const answer = (await runScript(this.redis, ACQUIRE, [slots, `${this.prefix}mx:cool:${host}`], [this.limit, ttl, holder])) as number | string;
      if (answer === 1) {
        this.leases.waited(host, Date.now() - started);
        return this.leases.grant(host, until, () => void this.redis.zrem(slots, holder).catch(() => undefined));
      }
      if (typeof answer === 'string') {
        const pttl = await this.redis.pttl(`${this.prefix}mx:cool:${host}`);
        if (pttl > 0) this.leases.noteCoolDown(host, pttl, answer as CoolDownReason);
        throw new CoolingDownError(host, answer as CoolDownReason);
      }
      // Jittered polling: slots free at the pace of SMTP dialogues, tens of milliseconds at least.
      await new Promise((resolve) => setTimeout(resolve, Math.min(200, 10 + attempt * 10) * (0.5 + Math.random())));
    }
  }

  async coolDown(host: string, ms: number, reason: CoolDownReason): Promise<void> {
    this.leases.noteCoolDown(host, ms, reason);
    await this.redis.set(`${this.prefix}mx:cool:${host}`, reason, 'PX', ms);
  }
}
