import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { RedisSessionGate } from './session-gate';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The fleet's gate on the real Redis: two gates stand for two smtp-worker processes. */
let redis: Redis;
let prefix: string;

beforeEach(() => {
  redis = new Redis(REDIS_URL);
  prefix = `mggate:${randomBytes(6).toString('hex')}:`;
});
afterEach(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

const far = () => ({ until: Date.now() + 60_000 });

it('caps sessions per host across processes, and a released slot is taken by the next one', async () => {
  const one = new RedisSessionGate(redis, prefix, 2);
  const two = new RedisSessionGate(redis, prefix, 2);
  const a = await one.acquire('mx.a', far());
  const b = await two.acquire('mx.a', far());
  const controller = new AbortController();
  const third = two.acquire('mx.a', { ...far(), signal: controller.signal });
  a.release();
  const c = await third;
  expect(await redis.zcard(`${prefix}mx:slots:mx.a`)).toBe(2);
  expect(one.snapshot().hosts).toEqual([]);
  expect(two.snapshot().hosts).toEqual([{ host: 'mx.a', slotsHeld: 2, sessionsOpen: 0 }]);
  b.release();
  c.release();
  await Promise.all([one.leases.idle(), two.leases.idle()]);
  // The ZREM of a release is sent before idle resolves; a round trip after it sees it done.
  await redis.ping();
  expect(await redis.zcard(`${prefix}mx:slots:mx.a`)).toBe(0);
});

it('a forgotten lease runs out shortly after its deadline, in Redis and here, and is reported', async () => {
  const gate = new RedisSessionGate(redis, prefix, 1, 200);
  const expired = new Promise<string>((resolve) => gate.observe({ expired: resolve }));
  await gate.acquire('mx.a', { until: Date.now() + 100 });
  // Redis's own expiry is the lease's life too: a killed prober's slots come back by themselves.
  expect(await redis.pttl(`${prefix}mx:slots:mx.a`)).toBeLessThanOrEqual(300);
  expect(await expired).toBe('mx.a');
  await redis.ping();
  expect(await redis.zcard(`${prefix}mx:slots:mx.a`)).toBe(0);
  (await gate.acquire('mx.a', far())).release();
});

it('an extended lease lives on in Redis from its new end: a session kept for the next probe keeps its slot', async () => {
  const gate = new RedisSessionGate(redis, prefix, 1, 200);
  const lease = await gate.acquire('mx.a', { until: Date.now() + 100 });
  const slots = `${prefix}mx:slots:mx.a`;
  const [holder] = await redis.zrange(slots, 0, 0);
  lease.extend(Date.now() + 60_000);
  // The renewal went out with the extension, on the same connection as this read.
  expect(Number(await redis.zscore(slots, holder))).toBeGreaterThan(Date.now() + 10_000);
  expect(await redis.pttl(slots)).toBeGreaterThan(10_000);
  lease.release();
  await gate.leases.idle();
  await redis.ping();
  expect(await redis.zcard(slots)).toBe(0);
});

it('knows the hosts where a prober of any process waits for a slot', async () => {
  const one = new RedisSessionGate(redis, prefix, 1);
  const two = new RedisSessionGate(redis, prefix, 1);
  const held = await one.acquire('mx.a', far());
  const other = await one.acquire('mx.b', far());
  expect(await one.unwelcome(['mx.a', 'mx.b'])).toEqual(new Set());
  const controller = new AbortController();
  const waiting = two.acquire('mx.a', { ...far(), signal: controller.signal });
  // Its first try, sent on the same connection before this read, found the host full and said so.
  expect(await one.unwelcome(['mx.a', 'mx.b'])).toEqual(new Set(['mx.a']));
  controller.abort();
  await expect(waiting).rejects.toThrow('gave up waiting');
  held.release();
  other.release();
});

it('a short lease never shortens the life of the set that holds a long one', async () => {
  const gate = new RedisSessionGate(redis, prefix, 5);
  const long = await gate.acquire('mx.a', far());
  const short = await gate.acquire('mx.a', { until: Date.now() + 1_000 });
  expect(await redis.pttl(`${prefix}mx:slots:mx.a`)).toBeGreaterThan(5_000);
  short.release();
  long.release();
});

it('a cool-down set by one process is known to another once it meets it', async () => {
  const one = new RedisSessionGate(redis, prefix, 1);
  const two = new RedisSessionGate(redis, prefix, 1);
  await one.coolDown('mx.a', 10_000, 'busy');
  expect(one.snapshot().coolDowns).toEqual([{ host: 'mx.a', reason: 'busy' }]);
  await expect(two.acquire('mx.a', far())).rejects.toMatchObject({ reason: 'busy' });
  expect(two.snapshot().coolDowns).toEqual([{ host: 'mx.a', reason: 'busy' }]);
});

describe('leases in Redis are renewed while their prober lives', () => {
  const timing = { ttlMs: 300, renewMs: 100 };

  it('a live session keeps its slot past the Redis lease time; a killed prober loses it within that time', async () => {
    const proberRedis = new Redis(REDIS_URL);
    const prober = new RedisSessionGate(proberRedis, prefix, 1, 5_000, timing);
    const other = new RedisSessionGate(redis, prefix, 1, 5_000, timing);
    await prober.acquire('mx.a', far());
    expect(prober.renewing).toBe(true);
    // Three lease times go by: the renewals keep the slot taken.
    await expect(other.acquire('mx.a', { ...far(), signal: AbortSignal.timeout(1_000) })).rejects.toThrow(
      'gave up waiting',
    );
    // The prober dies (its connection goes, nothing renews): the slot comes back by itself.
    proberRedis.disconnect();
    (await other.acquire('mx.a', far())).release();
  });

  it('renews only while a lease is held: the timer stops with the last release, on every path', async () => {
    const gate = new RedisSessionGate(redis, prefix, 2, 50, timing);
    expect(gate.renewing).toBe(false);
    const first = await gate.acquire('mx.a', far());
    const second = await gate.acquire('mx.b', far());
    first.release();
    expect(gate.renewing).toBe(true);
    second.release();
    expect(gate.renewing).toBe(false);
    // A lease that runs out stops the timer as well.
    const expired = new Promise<string>((resolve) => gate.observe({ expired: resolve }));
    await gate.acquire('mx.a', { until: Date.now() + 50 });
    expect(gate.renewing).toBe(true);
    await expired;
    expect(gate.renewing).toBe(false);
  });
});
