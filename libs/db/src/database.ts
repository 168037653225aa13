import type { DataSource } from 'typeorm';
import type { DatabaseConfig } from '@mailguard/config';
import { AppError } from '@mailguard/errors';
import type { Logger } from '@mailguard/logger';
import { createDataSource, runMigrations } from './data-source';
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

/**
 * Owns the process's Postgres connection. A real server that is down at start-up does not stop
 * the process: it keeps retrying in the background and readiness says 503 meanwhile.
 */
export class Database {
  private embedded: EmbeddedPostgres | null = null;
  private source: DataSource | null = null;
  private connecting: Promise<void> | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly config: DatabaseConfig,
    private readonly logger: Logger,
  ) {}

  get mode(): 'embedded' | 'postgres' {
    return this.config.url ? 'postgres' : 'embedded';
  }

  /** Resolves once the first connection attempt has finished, successful or not. */
  async start(): Promise<void> {
    if (!this.config.url) {
      // Embedded mode has nothing to wait for: failing to open ./data is fatal.
      this.embedded = await startEmbeddedPostgres(this.config.embeddedDataDir);
      this.logger.info({ dataDir: this.config.embeddedDataDir }, 'embedded Postgres (PGlite) started');
    }
    await this.connect(RETRY_MIN_MS);
  }

  private connect(nextDelay: number): Promise<void> {
    this.connecting ??= (async () => {
      const source = createDataSource({
        url: this.embedded?.url ?? (this.config.url as string),
        poolSize: this.embedded ? 1 : 20,
        sharedSession: this.embedded !== null,
      });
      try {
        await source.initialize();
        await runMigrations(source);
        this.source = source;
        this.logger.info({ mode: this.mode }, 'database connected, migrations applied');
      } catch (error) {
        if (source.isInitialized) await source.destroy().catch(() => undefined);
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
    if (!this.source) throw new DatabaseUnavailableError();
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

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    await this.connecting?.catch(() => undefined);
    if (this.source?.isInitialized) await this.source.destroy();
    this.source = null;
    await this.embedded?.stop();
    this.embedded = null;
  }
}

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006']);

/** Whether an error from a query means the server is gone (503), not that the query was wrong. */
export function isDatabaseConnectionError(error: unknown): boolean {
  const candidate = error as { code?: string; driverError?: { code?: string }; message?: string } | null;
  if (!candidate) return false;
  const code = candidate.code ?? candidate.driverError?.code;
  if (code && CONNECTION_CODES.has(code)) return true;
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect/i.test(candidate.message ?? '');
}
