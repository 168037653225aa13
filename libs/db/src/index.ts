export { Database, DatabaseUnavailableError, isDatabaseConnectionError } from './database';
export { createDataSource, queryPrepared, runMigrations } from './data-source';
export { startEmbeddedPostgres, type EmbeddedPostgres } from './embedded-postgres';
export * from './entities';
