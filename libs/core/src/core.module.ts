import { once } from 'node:events';
import { Global, Inject, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { MemoryResultCache, RedisResultCache, type ResultCache } from '@mailguard/cache';
import { APP_CONFIG, ConfigModule, type AppConfig } from '@mailguard/config';
import type { Logger } from '@mailguard/logger';
import { Metrics } from '@mailguard/metrics';
import { connectRedis, createRedis } from '@mailguard/redis';
import { LOGGER, PROCESS_NAME, REDIS, RESULT_CACHE } from './tokens';

export interface CoreOptions {
  /** Loaded and validated once in main(), where a bad variable is reported in one line. */
  config: AppConfig;
  logger: Logger;
  /** The process's name: "gateway", "dns-worker"… */
  process: string;
}

/**
 * The client when REDIS_URL is set. A Redis that is down at start does not stop the process: the
 * first connection is awaited a few seconds at most, readiness says 503 meanwhile and ioredis
 * keeps reconnecting.
 */
async function openRedis(config: AppConfig, logger: Logger): Promise<Redis | null> {
  const redis = createRedis(config.redis);
  if (!redis) return null;
  redis.on('error', (err: Error) => logger.warn({ err: err.message }, 'redis connection error'));
  await connectRedis(redis);
  return redis;
}

/**
 * What every process shares: the configuration, the logger, Redis, the metrics registry and the
 * result cache. Redis is the last thing a process lets go (global modules end after the others).
 */
@Global()
@Module({})
export class CoreModule implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: Redis | null) {}

  static forRoot(options: CoreOptions): DynamicModule {
    return {
      module: CoreModule,
      imports: [ConfigModule.forRoot(options.config)],
      providers: [
        { provide: LOGGER, useValue: options.logger },
        { provide: PROCESS_NAME, useValue: options.process },
        { provide: REDIS, inject: [APP_CONFIG, LOGGER], useFactory: openRedis },
        { provide: Metrics, inject: [PROCESS_NAME], useFactory: (name: string) => new Metrics(name) },
        {
          provide: RESULT_CACHE,
          inject: [APP_CONFIG, REDIS],
          useFactory: (config: AppConfig, redis: Redis | null): ResultCache =>
            redis ? new RedisResultCache(redis, config.redis.keyPrefix) : new MemoryResultCache(),
        },
      ],
      exports: [ConfigModule, LOGGER, PROCESS_NAME, REDIS, Metrics, RESULT_CACHE],
    };
  }

  /** Resolves once the connection has closed; a client between reconnection attempts has none to wait for. */
  async onApplicationShutdown(): Promise<void> {
    if (!this.redis || this.redis.status === 'end') return;
    const ended = this.redis.status === 'reconnecting' ? null : once(this.redis, 'end');
    this.redis.disconnect();
    await ended;
  }
}
