import { RedisResultCache } from '@mailguard/cache';
import { buildEngine, concludeHandler, ResultStore } from '@mailguard/pipeline';
import { runWorker } from '@mailguard/worker';

/** Stage 3: catch-all confidence and the verdict; the result is stored in Postgres and cached. */
void runWorker('scoring-worker', {
  queue: 'scoring',
  port: 3103,
  concurrency: 20,
  needsDatabase: true,
  handlers: ({ config, redis, database }) => {
    const store = new ResultStore(() => database!.dataSource, new RedisResultCache(redis, config.redis.keyPrefix), config.checks.cacheTtlSeconds);
    return { 'scoring.conclude': concludeHandler(buildEngine(config, redis), store) };
  },
});
