import { Module, type FactoryProvider } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { DataSource } from 'typeorm';
import type { ResultCache } from '@mailguard/cache';
import { APP_CONFIG, type AppConfig } from '@mailguard/config';
import { CreditLedger } from '@mailguard/credits';
import { Database } from '@mailguard/db';
import { DomainKnowledge, FeedbackStore } from '@mailguard/feedback';
import { ApiKeys, RedisKeyChanges } from '@mailguard/keys';
import { ListStore } from '@mailguard/lists';
import { ResultStore } from '@mailguard/pipeline';
import { WidgetSettingsStore } from '@mailguard/widget';
import { DatabaseModule } from './database.module';
import { RedisModule } from './redis.module';
import { ResultCacheModule } from './result-cache.module';
import { REDIS, RESULT_CACHE } from './tokens';

/** A store that reads the data source at each call: it throws DatabaseUnavailableError (503) until Postgres is up. */
function store<T>(type: new (dataSource: () => DataSource) => T): FactoryProvider<T> {
  return { provide: type, inject: [Database], useFactory: (database: Database) => new type(() => database.dataSource) };
}

/**
 * The Postgres-backed stores, each built once per process. `ApiKeys` is built here but listens for
 * key changes only where keys are checked (the gateway's AuthModule calls `listen()`).
 */
@Module({
  imports: [DatabaseModule, RedisModule, ResultCacheModule],
  providers: [
    store(ListStore),
    store(DomainKnowledge),
    store(FeedbackStore),
    store(WidgetSettingsStore),
    {
      provide: ResultStore,
      inject: [Database, RESULT_CACHE, APP_CONFIG],
      useFactory: (database: Database, cache: ResultCache, config: AppConfig) =>
        new ResultStore(() => database.dataSource, cache, config.checks.cacheTtlSeconds),
    },
    {
      provide: ApiKeys,
      inject: [Database, REDIS, APP_CONFIG],
      useFactory: (database: Database, redis: Redis | null, config: AppConfig) =>
        new ApiKeys(() => database.dataSource, redis ? new RedisKeyChanges(redis, config.redis.keyPrefix) : null),
    },
    {
      provide: CreditLedger,
      inject: [Database, ApiKeys],
      // The key cache follows every balance this process moves (X-Credits-Remaining stays current).
      useFactory: (database: Database, keys: ApiKeys) =>
        new CreditLedger(
          () => database.dataSource,
          (accountId, balance) => keys.noteBalance(accountId, balance),
        ),
    },
  ],
  exports: [
    DatabaseModule,
    ListStore,
    DomainKnowledge,
    FeedbackStore,
    WidgetSettingsStore,
    ResultStore,
    ApiKeys,
    CreditLedger,
  ],
})
export class StoresModule {}
