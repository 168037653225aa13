import type { Redis } from 'ioredis';
import { RedisResultCache } from '@mailguard/cache';
import { APP_CONFIG, type AppConfig } from '@mailguard/config';
import { Database } from '@mailguard/db';
import { DomainKnowledge } from '@mailguard/feedback';
import { concludeGroupHandler, ListStore } from '@mailguard/lists';
import { buildEngine, concludeHandler, listOptions, ResultStore } from '@mailguard/pipeline';
import { REDIS, runWorker } from '@mailguard/worker';

/** Stage 3: catch-all confidence and the verdict; results are stored in Postgres (list rows settled) and cached. */
void runWorker('scoring-worker', {
  queue: 'scoring',
  concurrency: 20,
  needsDatabase: true,
  handlers: {
    inject: [APP_CONFIG, REDIS, Database],
    useFactory: (config: AppConfig, redis: Redis, database: Database) => {
      const cache = new RedisResultCache(redis, config.redis.keyPrefix);
      const store = new ResultStore(() => database.dataSource, cache, config.checks.cacheTtlSeconds);
      const engine = buildEngine(config, redis);
      const lists = new ListStore(() => database.dataSource);
      const knowledge = new DomainKnowledge(() => database.dataSource);
      return {
        'scoring.conclude': concludeHandler(engine, store, knowledge),
        'scoring.concludeGroup': concludeGroupHandler(engine, lists, cache, knowledge, listOptions(config)),
      };
    },
  },
});
