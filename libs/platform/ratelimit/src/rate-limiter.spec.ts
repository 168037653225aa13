import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { MemoryRateLimiter, RedisRateLimiter, type RateLimiter } from './rate-limiter';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('MemoryRateLimiter', () => {
  it('allows `limit` hits per rolling window and tells when the oldest leaves it', async () => {
    let now = 1_000_000;
    const limiter = new MemoryRateLimiter(() => now);
    expect(await limiter.hit('k', 2, 10_000)).toEqual({ allowed: true, limit: 2, remaining: 1, resetSeconds: 10 });
    now += 4_000;
    expect(await limiter.hit('k', 2, 10_000)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await limiter.hit('k', 2, 10_000)).toEqual({ allowed: false, limit: 2, remaining: 0, resetSeconds: 6 });
    now += 6_000;
    expect(await limiter.hit('k', 2, 10_000)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('forgets clients whose windows have emptied: a long-lived process does not pile up keys', async () => {
    let now = 0;
    const limiter = new MemoryRateLimiter(() => now);
    for (let client = 0; client < 5_000; client++) await limiter.hit(`ip:${client}`, 20, 60_000);
    await limiter.hit('key:busy', 60, 3_600_000);
    expect(limiter.size).toBe(5_001);
    now += 61_000;
    await limiter.hit('key:other', 60, 60_000);
    // The hour-long window still holds its hit; the minute-long ones are gone.
    expect(limiter.size).toBe(2);
  });
});

/** `peek` tells what a hit would be told and counts nothing, on both stores. */
async function peekCountsNothing(limiter: RateLimiter): Promise<void> {
  expect(await limiter.peek('p', 2, 60_000)).toEqual({ allowed: true, limit: 2, remaining: 2, resetSeconds: 0 });
  await limiter.hit('p', 2, 60_000);
  for (let i = 0; i < 5; i++) expect(await limiter.peek('p', 2, 60_000)).toMatchObject({ allowed: true, remaining: 1 });
  await limiter.hit('p', 2, 60_000);
  const full = await limiter.peek('p', 2, 60_000);
  expect(full).toMatchObject({ allowed: false, remaining: 0 });
  expect(full.resetSeconds).toBeGreaterThanOrEqual(59);
  expect(full.resetSeconds).toBeLessThanOrEqual(60);
  expect(await limiter.hit('p', 2, 60_000)).toMatchObject({ allowed: false });
}

describe('peek', () => {
  it('on the embedded store', async () => {
    let now = 1_000_000;
    const limiter = new MemoryRateLimiter(() => now);
    await peekCountsNothing(limiter);
    now += 60_000;
    expect(await limiter.peek('p', 2, 60_000)).toMatchObject({ allowed: true, remaining: 2 });
  });

  it('on Redis', async () => {
    const redis = new Redis(REDIS_URL);
    const prefix = `mgrl:${randomBytes(6).toString('hex')}:`;
    try {
      await peekCountsNothing(new RedisRateLimiter(redis, prefix));
      expect(await redis.zcard(`${prefix}rl:p`)).toBe(2);
    } finally {
      await redis.del(`${prefix}rl:p`);
      redis.disconnect();
    }
  });
});
