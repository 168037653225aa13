import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { createDataSource, runMigrations } from '@mailguard/db';

/** The real servers tests run against (started by .ci/run when they are down). */
export const TEST_POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface TestDatabase {
  url: string;
  name: string;
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Brings an account's balance to `target`, through a ledger row as every movement is. */
  setBalance(accountId: string, target: number): Promise<void>;
  drop(): Promise<void>;
}

/** A fresh database on the real Postgres server, dropped again by `drop()`. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `mg_test_${randomBytes(6).toString('hex')}`;
  const admin = new Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${name}`;
  async function query<T>(sql: string, params?: unknown[]): Promise<T[]> {
    const client = new Client({ connectionString: url.toString() });
    await client.connect();
    try {
      return (await client.query(sql, params)).rows as T[];
    } finally {
      await client.end();
    }
  }
  return {
    url: url.toString(),
    name,
    query,
    async setBalance(accountId, target) {
      await query(
        // Every statement of a CTE sees the same snapshot: `old` is the balance before the update.
        `WITH moved AS (UPDATE accounts SET balance = $2 WHERE id = $1 RETURNING balance)
         INSERT INTO credit_transactions (account_id, delta, kind, reason, ref, balance_after)
         SELECT $1, $2 - old.balance, CASE WHEN $2 < old.balance THEN 'charge' ELSE 'grant' END, 'test: set balance', NULL, moved.balance
         FROM moved, (SELECT balance FROM accounts WHERE id = $1) AS old`,
        [accountId, target],
      );
    },
    async drop() {
      const client = new Client({ connectionString: TEST_POSTGRES_URL });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

/**
 * A fresh database with the migrations run and `pools` data sources on it, each standing for one
 * gateway's pool; `close()` ends them and drops the database.
 */
export async function createMigratedDatabase(
  pools: number,
): Promise<{ database: TestDatabase; sources: DataSource[]; close(): Promise<void> }> {
  const database = await createTestDatabase();
  const sources = Array.from({ length: pools }, () => createDataSource({ url: database.url, poolSize: 10 }));
  await Promise.all(sources.map((source) => source.initialize()));
  await runMigrations(sources[0]);
  return {
    database,
    sources,
    async close() {
      await Promise.all(sources.map((source) => source.destroy()));
      await database.drop();
    },
  };
}

/**
 * Resolves once `count` sessions of the database wait on a lock (a row another transaction holds):
 * Postgres tells no one, so its activity view is read every 20 ms, for at most 10 s.
 */
export async function waitForLockWait(database: TestDatabase, count = 1): Promise<void> {
  const until = Date.now() + 10_000;
  for (;;) {
    const [row] = await database.query<{ waiting: number }>(
      "SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock'",
      [database.name],
    );
    if (row.waiting >= count) return;
    if (Date.now() > until) throw new Error(`no ${count} sessions waiting on a lock after 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Deletes every Redis key a test run wrote under its prefix. */
export async function flushRedisPrefix(prefix: string): Promise<void> {
  const redis = new Redis(TEST_REDIS_URL);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
