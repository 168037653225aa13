export { Database, DatabaseUnavailableError } from './database';
export { createDataSource, runMigrations } from './data-source';
export { startEmbeddedPostgres, type EmbeddedPostgres } from './embedded-postgres';
