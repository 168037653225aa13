import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { VerificationResult } from '@mailguard/engine';
import { answerJson, MemoryResultCache, RedisResultCache, type ResultCache } from './result-cache';

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

describe('the cached answer as JSON text (getAnswer, answerJson)', () => {
  const stored = {
    email: 'john.doe@acme.test',
    status: 'valid',
    subStatus: null,
    verifiedAt: '2026-11-27T00:00:00.000Z',
    cached: false,
    // A value that spells the keys out: inside a JSON string their quotes are escaped.
    checks: { smtp: { message: '250 "cached":false "subStatus": \\ ok' } },
  } as unknown as VerificationResult;
  const answer = (result: VerificationResult) => JSON.stringify({ ...result, cached: true });

  it('is the stored text with cached: true, byte for byte what serialising the marked result gives', () => {
    const text = answerJson(JSON.stringify(stored));
    expect(text).toBe(answer(stored));
    expect(JSON.parse(text)).toEqual({ ...stored, cached: true });
  });

  it('gives an answer cached before subStatus existed its null, where get puts it', () => {
    const { subStatus: _subStatus, ...old } = stored;
    expect(answerJson(JSON.stringify(old))).toBe(answer({ ...old, subStatus: null } as VerificationResult));
  });

  it('serialises again whatever the in-place mark cannot be sure of', () => {
    const marked = { ...stored, cached: true };
    expect(answerJson(JSON.stringify(marked))).toBe(answer(stored));
    const { cached: _cached, ...unmarked } = stored;
    expect(answerJson(JSON.stringify(unmarked))).toBe(answer(unmarked as VerificationResult));
  });

  it.each([
    ['Redis', () => new RedisResultCache(redis, prefix)],
    ['memory', () => new MemoryResultCache()],
  ])('%s: getAnswer is get’s result marked as cached, as text; null for none', async (_, make) => {
    const cache = make();
    await cache.set('answer@acme.test', stored, 60);
    const text = await cache.getAnswer('answer@acme.test');
    expect(text).toBe(JSON.stringify({ ...(await cache.get('answer@acme.test')), cached: true }));
    expect(await cache.getAnswer('none@acme.test')).toBeNull();
  });
});
