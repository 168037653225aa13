import { Module, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import type { Redis } from 'ioredis';
import { APP_CONFIG, type AppConfig } from '@mailguard/config';
import { REDIS, RedisModule, StoresModule } from '@mailguard/core';
import { ApiKeys } from '@mailguard/keys';
import {
  MemoryDailyQuota,
  MemoryRateLimiter,
  RedisDailyQuota,
  RedisRateLimiter,
  type DailyQuota,
  type RateLimiter,
} from '@mailguard/ratelimit';
import { ApiKeyGuard } from './api-key.guard';
import { KeyMeter } from './key-meter';
import { DAILY_QUOTA, RATE_LIMITER } from './tokens';

/**
 * Who may call what: the API-key guard of every route, the key meter (rate limit and credit
 * headers), the rate limiter and the widget's daily quota — shared by every gateway through Redis
 * when configured. Keys revoked on another gateway are dropped here as the change is published.
 */
@Module({
  imports: [StoresModule, RedisModule],
  providers: [
    {
      provide: RATE_LIMITER,
      inject: [APP_CONFIG, REDIS],
      useFactory: (config: AppConfig, redis: Redis | null): RateLimiter =>
        redis ? new RedisRateLimiter(redis, config.redis.keyPrefix) : new MemoryRateLimiter(),
    },
    {
      provide: DAILY_QUOTA,
      inject: [APP_CONFIG, REDIS],
      useFactory: (config: AppConfig, redis: Redis | null): DailyQuota =>
        redis ? new RedisDailyQuota(redis, config.redis.keyPrefix) : new MemoryDailyQuota(),
    },
    KeyMeter,
    { provide: APP_GUARD, useClass: ApiKeyGuard },
  ],
  exports: [RATE_LIMITER, DAILY_QUOTA, KeyMeter],
})
export class AuthModule implements OnModuleInit, OnApplicationShutdown {
  constructor(private readonly keys: ApiKeys) {}

  /** Before the gateway serves: a key revoked elsewhere must not be served from this one's cache. */
  onModuleInit(): Promise<void> {
    return this.keys.listen();
  }

  onApplicationShutdown(): void {
    this.keys.close();
  }
}
