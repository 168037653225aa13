import type { Redis } from 'ioredis';
import { luaScript, runScript } from '@mailguard/redis';
import {
  CoolingDownError,
  GateAbortedError,
  LEASE_GRACE_MS,
  LeaseBook,
  type CoolDownReason,
  type GateObserver,
  type GateSnapshot,
  type SessionGate,
  type SlotLease,
  type SlotRequest,
} from '@mailguard/smtp';

/**
 * Takes a slot when the host has one: leases are scored by their expiry, so the slots of a killed
 * prober come back by themselves. The set lives as long as its longest lease. Returns 1 (taken),
 * 0 (full: the host is marked wanted for a while, so that sessions kept open there are let go) or
 * the cool-down reason.
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
redis.call('SET', KEYS[3], '1', 'PX', ARGV[4])
return 0
`);

/** Pushes the expiry of this process's live leases of one host forward (never past their own end). */
const RENEW = luaScript(`
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local longest = 0
for i = 1, #ARGV, 2 do
  local ttl = tonumber(ARGV[i + 1])
  redis.call('ZADD', KEYS[1], 'XX', now + ttl, ARGV[i])
  if ttl > longest then longest = ttl end
end
if longest > 0 and redis.call('PTTL', KEYS[1]) < longest then redis.call('PEXPIRE', KEYS[1], longest) end
return 1
`);

export interface RedisLeaseTiming {
  /** How long a lease stays in Redis without renewal: how soon a killed prober's slots come back. */
  ttlMs: number;
  /** How often a live process renews its leases. */
  renewMs: number;
}

const DEFAULT_TIMING: RedisLeaseTiming = { ttlMs: 15_000, renewMs: 5_000 };
/** How long a host stays wanted after a prober found it full: waiters ask again well within it. */
const WANTED_MS = 1_000;

/**
 * The per-MX session cap and cool-downs of every smtp-worker process together, in Redis. A lease
 * lives in Redis for `ttlMs` and is renewed while its process lives, up to its own end (the
 * session's deadline and a grace), so a killed prober's slots come back within seconds and a long
 * list session keeps its slot.
 */
export class RedisSessionGate implements SessionGate {
  private sequence = 0;
  readonly leases: LeaseBook;
  /** Live leases per host: holder → epoch ms of its end. */
  private readonly live = new Map<string, Map<string, number>>();
  private renewal: NodeJS.Timeout | null = null;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly limit: number,
    graceMs = LEASE_GRACE_MS,
    private readonly timing: RedisLeaseTiming = DEFAULT_TIMING,
  ) {
    this.leases = new LeaseBook(graceMs);
    // Loaded ahead: a script's first EVALSHA then never falls back to EVAL, which would be sent after later commands.
    for (const script of [ACQUIRE, RENEW]) void redis.script('LOAD', script.source).catch(() => undefined);
  }

  private slotsKey(host: string): string {
    return `${this.prefix}mx:slots:${host}`;
  }

  private wantedKey(host: string): string {
    return `${this.prefix}mx:wanted:${host}`;
  }

  private track(host: string, holder: string, end: number): void {
    const holders = this.live.get(host) ?? new Map<string, number>();
    holders.set(holder, end);
    this.live.set(host, holders);
    this.renewal ??= setInterval(() => void this.renew(), this.timing.renewMs).unref();
  }

  private untrack(host: string, holder: string): void {
    const holders = this.live.get(host);
    holders?.delete(holder);
    if (holders?.size === 0) this.live.delete(host);
    if (this.live.size === 0 && this.renewal) {
      clearInterval(this.renewal);
      this.renewal = null;
    }
  }

  private async renew(): Promise<void> {
    await Promise.all([...this.live].map(([host, holders]) => this.renewHolders(host, [...holders])));
  }

  private async renewHolders(host: string, holders: Array<[string, number]>): Promise<void> {
    const now = Date.now();
    const args = holders.flatMap(([holder, end]) => [holder, Math.max(1, Math.min(this.timing.ttlMs, end - now))]);
    // Redis away: the leases run out there, and the probes fail to get new ones until it is back.
    await runScript(this.redis, RENEW, [this.slotsKey(host)], args).catch(() => undefined);
  }

  /** Whether this gate renews leases now (a timer runs only while a lease is held). */
  get renewing(): boolean {
    return this.renewal !== null;
  }

  observe(observer: GateObserver): void {
    this.leases.observe(observer);
  }

  snapshot(): GateSnapshot {
    return this.leases.snapshot();
  }

  async acquire(host: string, { until, signal }: SlotRequest): Promise<SlotLease> {
    const holder = `${process.pid}:${this.sequence++}:${Math.random().toString(36).slice(2)}`;
    const slots = this.slotsKey(host);
    const started = performance.now();
    for (let attempt = 0; ; attempt++) {
      if (signal?.aborted) throw new GateAbortedError();
      // Relative to Redis's clock (TIME): prober clocks need not agree with each other.
      const ttl = Math.min(this.timing.ttlMs, this.leases.ttl(until));
      const answer = (await runScript(
        this.redis,
        ACQUIRE,
        [slots, `${this.prefix}mx:cool:${host}`, this.wantedKey(host)],
        [this.limit, ttl, holder, WANTED_MS],
      )) as number | string;
      if (answer === 1) {
        this.leases.waited(host, performance.now() - started);
        this.track(host, holder, Date.now() + this.leases.ttl(until));
        return this.leases.grant(
          host,
          until,
          () => {
            this.untrack(host, holder);
            void this.redis.zrem(slots, holder).catch(() => undefined);
          },
          (end) => {
            this.track(host, holder, end);
            // At once: the last renewal may have cut its expiry in Redis shorter than the new end.
            void this.renewHolders(host, [[holder, end]]);
          },
        );
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

  async unwelcome(hosts: string[]): Promise<Set<string>> {
    if (hosts.length === 0) return new Set();
    const keys = hosts.flatMap((host) => [this.wantedKey(host), `${this.prefix}mx:cool:${host}`]);
    const found = await this.redis.mget(keys);
    return new Set(hosts.filter((_, index) => found[2 * index] !== null || found[2 * index + 1] !== null));
  }
}
