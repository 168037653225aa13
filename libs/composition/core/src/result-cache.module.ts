import { Module } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { MemoryResultCache, RedisResultCache, type ResultCache } from '@mailguard/cache';
import { APP_CONFIG, type AppConfig } from '@mailguard/config';
import { RedisModule } from './redis.module';
import { REDIS, RESULT_CACHE } from './tokens';

/** The result cache: in Redis when configured (shared by every process), else in this process's memory. */
@Module({
  imports: [RedisModule],
  providers: [
    {
      provide: RESULT_CACHE,
      inject: [APP_CONFIG, REDIS],
      useFactory: (config: AppConfig, redis: Redis | null): ResultCache =>
        redis ? new RedisResultCache(redis, config.redis.keyPrefix) : new MemoryResultCache(),
    },
  ],
  exports: [RESULT_CACHE],
})
export class ResultCacheModule {}
