import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { buildEgress, EgressPool, STRIKE_MEMORY_MS, type EgressBlock } from '@mailguard/smtp';
import { RedisEgressBlocks } from './egress-blocks';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Egress blocks on the real Redis: two stores stand for two prober processes (or a prober and the gateway). */
let redis: Redis;
let prefix: string;
const stores: RedisEgressBlocks[] = [];

beforeEach(() => {
  redis = new Redis(REDIS_URL);
  prefix = `mgegress:${randomBytes(6).toString('hex')}:`;
});
afterEach(async () => {
  for (const store of stores.splice(0)) store.close();
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

function store(): RedisEgressBlocks {
  const made = new RedisEgressBlocks(redis, prefix);
  stores.push(made);
  return made;
}

let now = Date.now();

function pool(blocks: RedisEgressBlocks): EgressPool {
  const egress = (address: string) =>
    buildEgress({ id: `local:${address}`, localAddress: address, proxy: null, providers: null });
  return new EgressPool([egress('10.0.0.1'), egress('10.0.0.2')], blocks, 60_000, () => now);
}

it('a block one prober finds is known to the others at their next refresh, and its end to all', async () => {
  const one = store();
  const two = store();
  const prober = pool(one);
  const gateway = pool(two);
  await prober.block('local:10.0.0.1', 'google', '554 5.7.1 blocked');
  // At once in the process that found it: its next probe goes the other way.
  expect(prober.usable('google').map((egress) => egress.id)).toEqual(['local:10.0.0.2']);
  await two.refresh();
  expect(gateway.blocks()).toEqual([
    expect.objectContaining({ egress: 'local:10.0.0.1', key: 'google', reason: '554 5.7.1 blocked', strikes: 1 }),
  ]);
  // Once its back-off is over, a probe through it that is answered lifts it for all.
  now += 60_000;
  await gateway.through('local:10.0.0.1', 'google');
  await one.refresh();
  expect(one.current()).toEqual([]);
});

it('a refresh that read Redis before a local write does not undo it (the view keeps the write)', async () => {
  const blocks = store();
  const block: EgressBlock = {
    egress: 'local:10.0.0.1',
    key: 'google',
    reason: 'x',
    since: Date.now(),
    until: Date.now() + 60_000,
    strikes: 3,
  };
  const reading = blocks.refresh();
  await blocks.put(block);
  await reading;
  expect(blocks.get('local:10.0.0.1', 'google')).toEqual(block);
  const again = blocks.refresh();
  await blocks.remove('local:10.0.0.1', 'google');
  await again;
  expect(blocks.get('local:10.0.0.1', 'google')).toBeUndefined();
});

it('forgets what outlived its strike memory, in Redis too (unless written anew meanwhile), and reads past a field it cannot parse', async () => {
  const blocks = store();
  const old: EgressBlock = {
    egress: 'local:10.0.0.1',
    key: 'yahoo',
    reason: 'x',
    since: 0,
    until: Date.now() - STRIKE_MEMORY_MS - 1,
    strikes: 3,
  };
  await blocks.put(old);
  await redis.hset(`${prefix}prober:blocks`, 'local:10.0.0.2|google', 'not json');
  await blocks.refresh();
  expect(blocks.current()).toEqual([]);
  expect(await redis.hlen(`${prefix}prober:blocks`)).toBe(0);
});

it('refreshes from its first read until closed, and keeps its view while Redis is away', async () => {
  const blocks = store();
  expect(blocks.refreshing).toBe(false);
  await blocks.put({
    egress: 'local:10.0.0.1',
    key: 'google',
    reason: 'x',
    since: Date.now(),
    until: Date.now() + 60_000,
    strikes: 1,
  });
  expect(blocks.current()).toHaveLength(1);
  expect(blocks.refreshing).toBe(true);
  const away = new Redis('redis://127.0.0.1:1', {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  away.on('error', () => undefined);
  const cut = new RedisEgressBlocks(away, prefix);
  stores.push(cut);
  await cut.refresh();
  expect(cut.current()).toEqual([]);
  blocks.close();
  expect(blocks.refreshing).toBe(false);
  expect(blocks.current()).toHaveLength(1);
  away.disconnect();
});
