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

it('a short lease never shortens the life of the set that holds a long one', async () => {
  const gate = new RedisSessionGate(redis, prefix, 5);
  const long = await gate.acquire('mx.a', far());
  const short = await gate.acquire('mx.a', { until: Date.now() + 1_000 });
  expect(await redis.pttl(`${prefix}mx:slots:mx.a`)).toBeGreaterThan(30_000);
  short.release();
  long.release();
});

it('a cool-down set by one process is known to another once it meets it', async () => {
  const one = new RedisSessionGate(redis, prefix, 1);
  const two = new RedisSessionGate(redis, prefix, 1);
  await one.coolDown('mx.a', 10_000, 'blocked');
  expect(one.snapshot().coolDowns).toEqual([{ host: 'mx.a', reason: 'blocked' }]);
  await expect(two.acquire('mx.a', far())).rejects.toMatchObject({ reason: 'blocked' });
  expect(two.snapshot().coolDowns).toEqual([{ host: 'mx.a', reason: 'blocked' }]);
});
