import { DataSource, MigrationExecutor } from 'typeorm';
import type { PostgresDataSourceOptions } from 'typeorm/driver/postgres/PostgresDataSourceOptions';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';

export interface DataSourceOptions {
  url: string;
  /** PGlite serves one session at a time: every client must share a single connection. */
  poolSize: number;
  /**
   * The server keeps one session behind every connection (PGlite). `pg` takes a new connection
   * for a new session, with no prepared statement, lock or setting: each one starts by clearing
   * what the connection before it left (a statement prepared again would fail with 42P05).
   */
  sharedSession?: boolean;
}

interface PgClient {
  query(text: string): Promise<unknown>;
}

/** The one way this service talks to Postgres: its entities and migrations, never `synchronize`. */
export function dataSourceOptions(options: DataSourceOptions): PostgresDataSourceOptions {
  return {
    type: 'postgres',
    url: options.url,
    poolSize: options.poolSize,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    synchronize: false,
    logging: false,
    extra: {
      connectionTimeoutMillis: 5_000,
      ...(options.sharedSession ? { onConnect: (client: PgClient) => client.query('DISCARD ALL') } : {}),
    },
  };
}

export function createDataSource(options: DataSourceOptions): DataSource {
  return new DataSource(dataSourceOptions(options));
}

/** The part of a `pg` client used here: a query config with a name is prepared once per connection. */
interface PgConnection {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

/**
 * A named prepared statement on a pooled connection: Postgres plans it once per connection instead
 * of at every call. For the few statements of the hot path only. `QueryRunner.connect()` is
 * TypeORM's public way to the connection it took from its pool (TypeORM's own `query` cannot name
 * a statement), and releasing the runner gives it back, or drops it when it failed.
 */
export async function queryPrepared<T>(
  dataSource: DataSource,
  name: string,
  text: string,
  values: unknown[],
): Promise<T[]> {
  const runner = dataSource.createQueryRunner();
  try {
    const connection = (await runner.connect()) as PgConnection;
    const { rows } = await connection.query({ name, text, values });
    return rows as T[];
  } finally {
    await runner.release();
  }
}

/** Arbitrary but fixed: serialises migration runs of several processes starting together. */
const MIGRATION_LOCK = 0x6d67_0001;

export async function runMigrations(dataSource: DataSource): Promise<void> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    // Same runner as the lock: the embedded pool has a single connection.
    const executor = new MigrationExecutor(dataSource, runner);
    executor.transaction = 'each';
    await executor.executePendingMigrations();
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await runner.release();
  }
}
