import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { DataSource } from 'typeorm';
import { ApiKeyEntity, createDataSource, runMigrations } from '@mailguard/db';
import {
  createTestDatabase,
  flushRedisPrefix,
  TEST_REDIS_URL,
  type TestDatabase,
} from '../../../../test/support/services';
import { ApiKeys, generateKey } from './api-keys';
import { RedisKeyChanges } from './key-changes';

/**
 * Two gateways' key caches over one Postgres and one Redis: an account-wide change made on one is
 * dropped from the other's cache as the message arrives, and only that account's keys are.
 */
const prefix = `mgkeys:${randomBytes(6).toString('hex')}:`;
let database: TestDatabase;
let source: DataSource;
const clients: Redis[] = [];
const caches: ApiKeys[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  source = createDataSource({ url: database.url, poolSize: 2 });
  await source.initialize();
  await runMigrations(source);
});

afterAll(async () => {
  for (const cache of caches) cache.close();
  for (const client of clients) client.disconnect();
  await source?.destroy();
  await database?.drop();
  await flushRedisPrefix(prefix);
});

async function gateway(): Promise<ApiKeys> {
  const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
  clients.push(redis);
  const keys = new ApiKeys(() => source, new RedisKeyChanges(redis, prefix));
  caches.push(keys);
  await keys.listen();
  return keys;
}

async function account(id: string): Promise<string> {
  await database.query("INSERT INTO accounts (id, email, email_key, webhook_secret) VALUES ($1, $2, $2, 'secret')", [
    id,
    `${id}@example.test`,
  ]);
  const { key, prefix: shown, hash } = generateKey('secret');
  await source.getRepository(ApiKeyEntity).insert({
    id: `key_${id}`,
    accountId: id,
    name: 'test',
    type: 'secret',
    scope: 'full',
    prefix: shown,
    keyHash: hash,
    lastUsedAt: null,
    revokedAt: null,
  });
  return key;
}

it("drops an account's cached keys on every gateway when the account changes, and no other account's", async () => {
  const [a, b] = [await gateway(), await gateway()];
  const changed = await account('acc_changed');
  const other = await account('acc_other');
  expect((await b.authenticate(changed))?.account.status).toBe('active');
  expect((await b.authenticate(other))?.account.status).toBe('active');

  await database.query("UPDATE accounts SET status = 'suspended' WHERE id IN ('acc_changed', 'acc_other')");
  await a.accountChanged('acc_changed');
  const deadline = Date.now() + 10_000;
  for (;;) {
    if ((await b.authenticate(changed))?.account.status === 'suspended') break;
    if (Date.now() > deadline) throw new Error('the change never reached the other cache');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  // The other account was not named: its entry is still the cached one (for up to its 10 s).
  expect((await b.authenticate(other))?.account.status).toBe('active');
});
