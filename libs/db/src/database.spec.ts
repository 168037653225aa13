import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pool } from 'pg';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { createLogger } from '@mailguard/logger';
import { createTestDatabase, type TestDatabase } from '../../../test/support/services';
import { Database } from './database';
import { queryPrepared } from './data-source';

/**
 * A pooled connection may end at any time (the pool's idle timeout, a network error); the next one
 * must serve the same named statements. PGlite keeps one session behind every connection, so there
 * the new connection would otherwise find the statement prepared by the one before it (42P05).
 */
describe.each(['embedded', 'postgres'] as const)('Database (%s): prepared statements across pooled connections', (mode) => {
  jest.setTimeout(60_000);
  let database: Database;
  let server: TestDatabase | null = null;
  let dataDir: string | null = null;

  beforeAll(async () => {
    if (mode === 'postgres') server = await createTestDatabase();
    else dataDir = mkdtempSync(join(tmpdir(), 'mailguard-pglite-'));
    database = await Database.open({ url: server?.url ?? null, embeddedDataDir: dataDir ?? '' }, createLogger({ level: 'silent' }, 'test'));
  });

  afterAll(async () => {
    await database?.stop();
    await server?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** Ends every connection the pool holds, as its idle timeout would, and waits until each is gone. */
  async function dropConnections(): Promise<void> {
    const pool = (database.dataSource.driver as PostgresDriver).master as Pool;
    expect(pool.totalCount).toBeGreaterThan(0);
    while (pool.totalCount > 0) {
      const client = await pool.connect();
      const removed = once(pool, 'remove');
      client.release(true);
      await removed;
    }
  }

  it('runs a named statement again after the pool replaced its connection', async () => {
    const run = () => queryPrepared<{ n: number }>(database.dataSource, 'mailguard_test_statement', 'SELECT $1::int + 1 AS n', [41]);
    expect(await run()).toEqual([{ n: 42 }]);
    await dropConnections();
    expect(await run()).toEqual([{ n: 42 }]);
    await dropConnections();
    expect(await run()).toEqual([{ n: 42 }]);
  });

  it('gives a new connection a session of its own: no lock or setting of the one before survives', async () => {
    await database.dataSource.query("SELECT set_config('application_name', 'left-over', false), pg_advisory_lock(4242)");
    await dropConnections();
    const [row] = await database.dataSource.query<Array<{ name: string; locks: string }>>(
      "SELECT current_setting('application_name') AS name, (SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 4242) AS locks",
    );
    expect(row.name).not.toBe('left-over');
    expect(row).toEqual({ name: expect.any(String), locks: '0' });
  });
});
