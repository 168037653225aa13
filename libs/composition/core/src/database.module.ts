import { Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { TypeOrmModule, type TypeOrmModuleOptions } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '@mailguard/config';
import { connectionFor, Database, dataSourceOptions, openEmbedded, type EmbeddedPostgres } from '@mailguard/db';
import type { Logger } from '@mailguard/logger';
import { LOGGER } from './tokens';

/** The embedded server (PGlite) when DATABASE_URL is unset, else null. */
const EMBEDDED_POSTGRES = Symbol('EMBEDDED_POSTGRES');

/** Starts before the data source is built: its address is the data source's. */
@Module({
  providers: [
    {
      provide: EMBEDDED_POSTGRES,
      inject: [APP_CONFIG, LOGGER],
      useFactory: (config: AppConfig, logger: Logger) => openEmbedded(config.database, logger),
    },
  ],
  exports: [EMBEDDED_POSTGRES],
})
class EmbeddedPostgresModule {}

/**
 * Postgres through @nestjs/typeorm: one data source for the life of the process, initialized by
 * `Database` rather than by the module (`manualInitialization`), so that a server that is down at
 * start leaves the process up, answering 503 until a background attempt connects. Migrations run
 * under an advisory lock; the schema is never synchronized.
 */
@Module({
  imports: [
    EmbeddedPostgresModule,
    TypeOrmModule.forRootAsync({
      imports: [EmbeddedPostgresModule],
      inject: [APP_CONFIG, EMBEDDED_POSTGRES],
      useFactory: (config: AppConfig, embedded: EmbeddedPostgres | null): TypeOrmModuleOptions => ({
        ...dataSourceOptions(connectionFor(config.database, embedded)),
        manualInitialization: true,
      }),
    }),
  ],
  providers: [
    {
      provide: Database,
      inject: [DataSource, LOGGER, EMBEDDED_POSTGRES],
      useFactory: async (source: DataSource, logger: Logger, embedded: EmbeddedPostgres | null) => {
        const database = new Database(source, logger, embedded);
        await database.start();
        return database;
      },
    },
  ],
  exports: [Database],
})
export class DatabaseModule implements OnApplicationShutdown {
  constructor(@Inject(Database) private readonly database: Database) {}

  /** After everything that queries (modules importing this one end first). */
  onApplicationShutdown(): Promise<void> {
    return this.database.stop();
  }
}
