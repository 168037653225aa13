import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { VerificationResult } from '@mailguard/engine';
import { MemoryResultCache, RedisResultCache, type ResultCache } from './result-cache';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `mgresultcache:${randomBytes(6).toString('hex')}:`;
let redis: Redis;

beforeAll(() => {
  redis = new Redis(REDIS_URL);
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

const result = (email: string) => ({ email, status: 'valid', subStatus: null }) as unknown as VerificationResult;

describe.each([
  ['Redis', () => new RedisResultCache(redis, prefix)],
  ['memory', () => new MemoryResultCache()],
])('%s result cache: setMany (a list group’s results at once)', (_, make: () => ResultCache) => {
  it('stores every entry as set would, and nothing when the TTL is 0', async () => {
    const cache = make();
    await cache.setMany(
      [
        { key: 'a@x.test', result: result('a@x.test') },
        { key: 'b@x.test', result: result('b@x.test') },
      ],
      60,
    );
    expect(await cache.get('a@x.test')).toEqual(result('a@x.test'));
    expect(await cache.get('b@x.test')).toEqual(result('b@x.test'));
    await cache.setMany([{ key: 'c@x.test', result: result('c@x.test') }], 0);
    expect(await cache.get('c@x.test')).toBeNull();
  });
});

it('Redis: the entries expire with the TTL given', async () => {
  await new RedisResultCache(redis, prefix).setMany([{ key: 'ttl@x.test', result: result('ttl@x.test') }], 60);
  const ttl = await redis.ttl(`${prefix}result:ttl@x.test`);
  expect(ttl).toBeGreaterThan(0);
  expect(ttl).toBeLessThanOrEqual(60);
});
