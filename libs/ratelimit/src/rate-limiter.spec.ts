import { MemoryRateLimiter } from './rate-limiter';

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
