import { once } from 'node:events';
import { Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { APP_CONFIG, type AppConfig } from '@mailguard/config';
import type { Logger } from '@mailguard/logger';
import { connectRedis, createRedis } from '@mailguard/redis';
import { LOGGER, REDIS } from './tokens';

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
 * The process's one Redis client (static: one instance however many modules import it). Every
 * module using REDIS imports this one, so Nest ranks it deeper than all of them and ends it after
 * their own shutdown hooks: the client is closed last.
 */
@Module({
  providers: [{ provide: REDIS, inject: [APP_CONFIG, LOGGER], useFactory: openRedis }],
  exports: [REDIS],
})
export class RedisModule implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: Redis | null) {}

  /** Resolves once the connection has closed; a client between reconnection attempts has none to wait for. */
  async onApplicationShutdown(): Promise<void> {
    if (!this.redis || this.redis.status === 'end') return;
    const ended = this.redis.status === 'reconnecting' ? null : once(this.redis, 'end');
    this.redis.disconnect();
    await ended;
  }
}
