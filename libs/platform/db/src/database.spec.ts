import { EventEmitter, once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { Pool } from 'pg';
import { pino } from 'pino';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { createLogger } from '@mailguard/logger';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/services';
import { connectionFor, Database, DatabaseUnavailableError } from './database';
import { createDataSource, queryPrepared } from './data-source';

/**
 * A pooled connection may end at any time (the pool's idle timeout, a network error); the next one
 * must serve the same named statements. PGlite keeps one session behind every connection, so there
 * the new connection would otherwise find the statement prepared by the one before it (42P05).
 */
describe.each(['embedded', 'postgres'] as const)(
  'Database (%s): prepared statements across pooled connections',
  (mode) => {
    jest.setTimeout(60_000);
    let database: Database;
    let server: TestDatabase | null = null;
    let dataDir: string | null = null;

    beforeAll(async () => {
      if (mode === 'postgres') server = await createTestDatabase();
      else dataDir = mkdtempSync(join(tmpdir(), 'mailguard-pglite-'));
      database = await Database.open(
        { url: server?.url ?? null, embeddedDataDir: dataDir ?? '' },
        createLogger({ level: 'silent', hashKey: 'test', secrets: [] }, 'test'),
      );
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
      const run = () =>
        queryPrepared<{ n: number }>(database.dataSource, 'mailguard_test_statement', 'SELECT $1::int + 1 AS n', [41]);
      expect(await run()).toEqual([{ n: 42 }]);
      await dropConnections();
      expect(await run()).toEqual([{ n: 42 }]);
      await dropConnections();
      expect(await run()).toEqual([{ n: 42 }]);
    });

    it('gives a new connection a session of its own: no lock or setting of the one before survives', async () => {
      await database.dataSource.query(
        "SELECT set_config('application_name', 'left-over', false), pg_advisory_lock(4242)",
      );
      await dropConnections();
      const [row] = await database.dataSource.query<Array<{ name: string; locks: string }>>(
        "SELECT current_setting('application_name') AS name, (SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 4242) AS locks",
      );
      expect(row.name).not.toBe('left-over');
      expect(row).toEqual({ name: expect.any(String), locks: '0' });
    });
  },
);

/** A TCP port nothing listens on, until `forward` opens it onto the test server. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
  const { port } = probe.address() as AddressInfo;
  await new Promise((done) => probe.close(done));
  return port;
}

/** Postgres "coming back" on `port`: every connection is piped to the real server. */
async function forward(port: number, target: URL): Promise<{ close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const proxy = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined).once('close', () => sockets.delete(socket));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((done) => proxy.listen(port, '127.0.0.1', done));
  return {
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((done) => proxy.close(done));
    },
  };
}

describe('Database: a real server down at start', () => {
  jest.setTimeout(60_000);

  it('keeps its one data source and initializes it in the background once the server answers', async () => {
    const server = await createTestDatabase();
    const port = await freePort();
    const log = new EventEmitter();
    const logger = pino(
      { level: 'info' },
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          for (const line of chunk.toString().split('\n').filter(Boolean))
            log.emit('line', (JSON.parse(line) as { msg: string }).msg);
          done();
        },
      }),
    );
    const url = new URL(server.url);
    url.hostname = '127.0.0.1';
    url.port = String(port);
    const source = createDataSource(connectionFor({ url: url.toString(), embeddedDataDir: '' }, null));
    const database = new Database(source, logger);
    let proxy: { close(): Promise<void> } | null = null;
    try {
      await database.start();
      expect(() => database.dataSource).toThrow(DatabaseUnavailableError);
      await expect(database.ping()).rejects.toBeInstanceOf(DatabaseUnavailableError);

      const connected = new Promise<void>((done) =>
        log.on('line', (msg: string) => msg === 'database connected, migrations applied' && done()),
      );
      proxy = await forward(port, new URL(server.url));
      await connected;
      await database.ping();
      expect(database.dataSource).toBe(source);
      expect(await source.query('SELECT count(*)::int AS n FROM migrations')).toEqual([{ n: expect.any(Number) }]);
    } finally {
      await database.stop();
      expect(source.isInitialized).toBe(false);
      await proxy?.close();
      await server.drop();
    }
  });
});
