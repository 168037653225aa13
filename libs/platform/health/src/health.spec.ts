import { randomBytes } from 'node:crypto';
import { NestFactory } from '@nestjs/core';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { Database, DatabaseUnavailableError } from '@mailguard/db';
import { createLogger } from '@mailguard/logger';
import { connectRedis, createRedis, RedisUnavailableError } from '@mailguard/redis';
import {
  createTestDatabase,
  flushRedisPrefix,
  TEST_REDIS_URL,
  type TestDatabase,
} from '../../../../test/support/services';
import { HealthChecks, ShuttingDownError, type HealthTargets } from './health-checks';
import { HealthModule } from './health.module';
import type { QueueProbe } from './indicators';

/** Readiness through terminus against real Postgres, Redis and BullMQ; down servers are closed ports. */
jest.setTimeout(30_000);

const logger = createLogger({ level: 'silent', hashKey: 'test', secrets: [] }, 'test');
const prefix = `mghealthlib:${randomBytes(6).toString('hex')}:`;
let server: TestDatabase;
let database: Database;
let redis: Redis;
let queue: Queue;
const closing: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  server = await createTestDatabase();
  database = await Database.open({ url: server.url, embeddedDataDir: '' }, logger);
  redis = createRedis({ url: TEST_REDIS_URL, keyPrefix: prefix })!;
  expect(await connectRedis(redis)).toBe(true);
  queue = new Queue('health', { connection: { url: TEST_REDIS_URL }, prefix });
});

afterAll(async () => {
  for (const close of closing) await close();
  await queue.close();
  redis.disconnect();
  await database.stop();
  await server.drop();
  await flushRedisPrefix(prefix);
});

async function healthOf(targets: HealthTargets) {
  const app = await NestFactory.createApplicationContext(HealthModule.forRoot(targets), { logger: false });
  closing.push(() => app.close());
  return { app, health: app.get(HealthChecks) };
}

/** A BullMQ queue as a process's queues, counting how often readiness asks it. */
function probe(target: Queue = queue): QueueProbe & { asked: number } {
  return {
    asked: 0,
    async ping() {
      this.asked++;
      await target.getJobCounts('wait');
    },
  };
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

it('is ready with Postgres, Redis and BullMQ answering, and names the servers', async () => {
  const queues = probe();
  const { health } = await healthOf({ database, redis, queues });
  expect(health.live()).toEqual({ status: 'ok' });
  expect(await health.ready()).toEqual({ status: 'ok', database: 'postgres', redis: 'redis' });
  expect(queues.asked).toBe(1);
});

it('leaves out what a process does not use: no database; Redis and queues in-process', async () => {
  const inProcess = { ping: async () => undefined };
  expect(await (await healthOf({ database: null, redis, queues: probe() })).health.ready()).toEqual({
    status: 'ok',
    redis: 'redis',
  });
  expect(await (await healthOf({ database, redis: null, queues: inProcess })).health.ready()).toEqual({
    status: 'ok',
    database: 'postgres',
    redis: 'in-process',
  });
});

it('answers with the database error while Postgres does not answer, before any Redis error', async () => {
  const down = await Database.open({ url: 'postgres://postgres@127.0.0.1:1/none', embeddedDataDir: '' }, logger);
  closing.push(() => down.stop());
  const deadRedis = createRedis({ url: 'redis://127.0.0.1:1', keyPrefix: prefix })!;
  deadRedis.on('error', () => undefined);
  closing.push(async () => deadRedis.disconnect());
  const queues = probe();
  for (const targets of [
    { database: down, redis, queues },
    { database: down, redis: deadRedis, queues },
  ]) {
    const error = await failure((await healthOf(targets)).health.ready());
    expect(error).toBeInstanceOf(DatabaseUnavailableError);
    expect(error).toMatchObject({ code: 'unavailable', message: 'The database is unavailable; retry shortly' });
  }
  expect(queues.asked).toBe(0);
});

it('answers with the Redis error while Redis does not answer, and does not ask the queues then', async () => {
  const deadRedis = createRedis({ url: 'redis://127.0.0.1:1', keyPrefix: prefix })!;
  deadRedis.on('error', () => undefined);
  closing.push(async () => deadRedis.disconnect());
  const queues = probe();
  const error = await failure((await healthOf({ database, redis: deadRedis, queues })).health.ready());
  expect(error).toBeInstanceOf(RedisUnavailableError);
  expect(error).toMatchObject({ code: 'unavailable', message: 'Redis is unavailable; retry shortly' });
  expect(queues.asked).toBe(0);
});

it('answers with the Redis error when the queues do not answer', async () => {
  const closed = new Queue('health-closed', { connection: { url: TEST_REDIS_URL }, prefix });
  await closed.close();
  const error = await failure((await healthOf({ database, redis, queues: probe(closed) })).health.ready());
  expect(error).toBeInstanceOf(RedisUnavailableError);
  expect((error as Error).cause).toBeInstanceOf(Error);
});

it('is not ready once the application closes (terminus: shutting down)', async () => {
  const { app, health } = await healthOf({ database, redis, queues: probe() });
  await app.close();
  const error = await failure(health.ready());
  expect(error).toBeInstanceOf(ShuttingDownError);
  expect(error).toMatchObject({ code: 'unavailable' });
});

it('is not ready while the process drains, though everything it depends on answers (and says so without asking them)', async () => {
  const queues = probe();
  const { health } = await healthOf({ database, redis, queues });
  expect(await health.ready()).toMatchObject({ status: 'ok' });
  health.drain();
  const error = await failure(health.ready());
  expect(error).toBeInstanceOf(ShuttingDownError);
  expect(error).toMatchObject({ code: 'unavailable' });
  expect(queues.asked).toBe(1);
  expect(health.live()).toEqual({ status: 'ok' });
});
