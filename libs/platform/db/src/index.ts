export { connectionFor, Database, DatabaseUnavailableError, isDatabaseConnectionError, openEmbedded } from './database';
export {
  createDataSource,
  dataSourceOptions,
  queryPrepared,
  runMigrations,
  type DataSourceOptions,
} from './data-source';
export { RELAXED_COMMIT } from './relaxed-commit';
export { startEmbeddedPostgres, type EmbeddedPostgres } from './embedded-postgres';
export * from './entities';
