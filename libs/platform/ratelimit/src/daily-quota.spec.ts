import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { MemoryDailyQuota, RedisDailyQuota, type DailyQuota } from './daily-quota';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

function behavesAsTheWidgetTier(name: string, make: () => { quota: DailyQuota; close?: () => Promise<void> }) {
  describe(name, () => {
    let quota: DailyQuota;
    let close: (() => Promise<void>) | undefined;
    beforeEach(() => ({ quota, close } = make()));
    afterEach(async () => close?.());

    it('passes a request only while every counter is under its limit, and then counts it on all', async () => {
      const device = (id: string): Array<[string, number]> => [
        [`device:${id}`, 2],
        ['ip:1', 3],
      ];
      expect(await quota.take(device('a'))).toEqual({ allowed: true, remaining: 1, exhausted: null });
      expect(await quota.take(device('a'))).toEqual({ allowed: true, remaining: 0, exhausted: null });
      expect(await quota.take(device('a'))).toEqual({ allowed: false, remaining: 0, exhausted: 0 });
      // A new device on the same IP: the IP has one left.
      expect(await quota.take(device('b'))).toEqual({ allowed: true, remaining: 0, exhausted: null });
      // The device has room left: the IP is what is full, and the answer says so.
      expect(await quota.take(device('c'))).toEqual({ allowed: false, remaining: 0, exhausted: 1 });
      // The refused requests counted nowhere: another IP's device starts afresh.
      expect(
        await quota.take([
          ['device:c', 2],
          ['ip:2', 3],
        ]),
      ).toEqual({ allowed: true, remaining: 1, exhausted: null });
    });
  });
}

behavesAsTheWidgetTier('MemoryDailyQuota', () => ({ quota: new MemoryDailyQuota() }));

behavesAsTheWidgetTier('RedisDailyQuota (real Redis)', () => {
  const redis = new Redis(REDIS_URL);
  const prefix = `mgtest:${randomBytes(6).toString('hex')}:`;
  return {
    quota: new RedisDailyQuota(redis, prefix),
    close: async () => {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    },
  };
});

describe('MemoryDailyQuota at midnight UTC', () => {
  it('starts every counter afresh on a new UTC day', async () => {
    let now = Date.parse('2026-11-26T23:59:59Z');
    const quota = new MemoryDailyQuota(() => now);
    expect(await quota.take([['device:a', 1]])).toEqual({ allowed: true, remaining: 0, exhausted: null });
    expect(await quota.take([['device:a', 1]])).toEqual({ allowed: false, remaining: 0, exhausted: 0 });
    now = Date.parse('2026-11-27T00:00:01Z');
    expect(await quota.take([['device:a', 1]])).toEqual({ allowed: true, remaining: 0, exhausted: null });
  });
});
