import type { DataSource } from 'typeorm';
import type { DatabaseConfig } from '@mailguard/config';
import { AppError } from '@mailguard/errors';
import type { Logger } from '@mailguard/logger';
import { createDataSource, runMigrations, type DataSourceOptions } from './data-source';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './embedded-postgres';

/** Thrown when a caller needs Postgres and it is not answering; the HTTP layer maps it to 503. */
export class DatabaseUnavailableError extends AppError {
  constructor(cause?: unknown) {
    super('unavailable', 'The database is unavailable; retry shortly', { cause });
    this.name = 'DatabaseUnavailableError';
  }
}

const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 10_000;

/** Starts PGlite in the configured data directory when no DATABASE_URL is set; null otherwise. */
export async function openEmbedded(config: DatabaseConfig, logger: Logger): Promise<EmbeddedPostgres | null> {
  if (config.url) return null;
  // Failing to open ./data is fatal: embedded mode has nothing to wait for.
  const embedded = await startEmbeddedPostgres(config.embeddedDataDir);
  logger.info({ dataDir: config.embeddedDataDir }, 'embedded Postgres (PGlite) started');
  return embedded;
}

/** Where the data source connects: the embedded server (one shared session) or DATABASE_URL. */
export function connectionFor(config: DatabaseConfig, embedded: EmbeddedPostgres | null): DataSourceOptions {
  if (embedded) return { url: embedded.url, poolSize: 1, sharedSession: true };
  if (!config.url) throw new Error('DATABASE_URL is unset and no embedded server was started');
  return { url: config.url, poolSize: 20 };
}

/**
 * Owns the process's Postgres connection: one data source, initialized here (never by whoever
 * built it) with the migrations applied. A real server that is down at start-up does not stop
 * the process: the same data source is initialized again in the background (TypeORM allows it
 * after a failed attempt) and readiness says 503 meanwhile. Stopping also stops the embedded server.
 */
export class Database {
  private ready = false;
  private connecting: Promise<void> | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly source: DataSource,
    private readonly logger: Logger,
    private embedded: EmbeddedPostgres | null = null,
  ) {}

  /** Outside Nest (tests, tools): the embedded server when needed, the data source, the first attempt. */
  static async open(config: DatabaseConfig, logger: Logger): Promise<Database> {
    const embedded = await openEmbedded(config, logger);
    const database = new Database(createDataSource(connectionFor(config, embedded)), logger, embedded);
    await database.start();
    return database;
  }

  get mode(): 'embedded' | 'postgres' {
    return this.embedded ? 'embedded' : 'postgres';
  }

  /** Resolves once the first connection attempt has finished, successful or not. */
  start(): Promise<void> {
    return this.connect(RETRY_MIN_MS);
  }

  private connect(nextDelay: number): Promise<void> {
    this.connecting ??= (async () => {
      try {
        await this.source.initialize();
        await runMigrations(this.source);
        this.ready = true;
        this.logger.info({ mode: this.mode }, 'database connected, migrations applied');
      } catch (error) {
        if (this.source.isInitialized) await this.source.destroy().catch(() => undefined);
        if (this.embedded) throw error;
        this.logger.warn({ err: error, retryInMs: nextDelay }, 'database unavailable, will retry');
        if (!this.stopped) {
          this.retryTimer = setTimeout(() => void this.connect(Math.min(nextDelay * 2, RETRY_MAX_MS)), nextDelay);
          this.retryTimer.unref();
        }
      } finally {
        this.connecting = null;
      }
    })();
    return this.connecting;
  }

  /** The connected data source, or DatabaseUnavailableError. */
  get dataSource(): DataSource {
    if (!this.ready) throw new DatabaseUnavailableError();
    return this.source;
  }

  /** Round trip to the server; throws DatabaseUnavailableError when it does not answer. */
  async ping(): Promise<void> {
    try {
      await this.dataSource.query('SELECT 1');
    } catch (error) {
      throw error instanceof DatabaseUnavailableError ? error : new DatabaseUnavailableError(error);
    }
  }

  /** Closes the pool before the embedded server it talks to. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    await this.connecting?.catch(() => undefined);
    this.ready = false;
    if (this.source.isInitialized) await this.source.destroy();
    await this.embedded?.stop();
    this.embedded = null;
  }
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
]);

/** Whether an error from a query means the server is gone (503), not that the query was wrong. */
export function isDatabaseConnectionError(error: unknown): boolean {
  const candidate = error as { code?: string; driverError?: { code?: string }; message?: string } | null;
  if (!candidate) return false;
  const code = candidate.code ?? candidate.driverError?.code;
  if (code && CONNECTION_CODES.has(code)) return true;
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect/i.test(
    candidate.message ?? '',
  );
}
