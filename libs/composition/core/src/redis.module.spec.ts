import { randomBytes } from 'node:crypto';
import { Inject, Injectable, Module, type BeforeApplicationShutdown, type OnApplicationShutdown } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Redis } from 'ioredis';
import { loadConfig } from '@mailguard/config';
import { createLogger } from '@mailguard/logger';
import { CoreModule } from './core.module';
import { RedisModule } from './redis.module';
import { REDIS } from './tokens';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `mgredismodule:${randomBytes(6).toString('hex')}:`;

/** What a module using Redis does as the process ends: each hook writes, then reads back, through the client. */
const written: string[] = [];

@Injectable()
class UsesRedisAtShutdown implements BeforeApplicationShutdown, OnApplicationShutdown {
  constructor(@Inject(REDIS) readonly redis: Redis) {}

  private async write(hook: string): Promise<void> {
    await this.redis.set(`${prefix}${hook}`, hook);
    written.push((await this.redis.get(`${prefix}${hook}`)) ?? 'lost');
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.write('before');
  }

  onApplicationShutdown(): Promise<void> {
    return this.write('on');
  }
}

@Module({ imports: [RedisModule], providers: [UsesRedisAtShutdown] })
class UserModule {}

/** One import further from the root than RedisModule is there: depth follows the longest path, not the first. */
@Module({ imports: [UserModule] })
class FeatureModule {}

describe('RedisModule', () => {
  afterAll(async () => {
    const { Redis } = await import('ioredis');
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it('is one client for every importer, closed after the shutdown hooks of the modules using it', async () => {
    const config = loadConfig({ REDIS_URL, REDIS_PREFIX: prefix, LOG_LEVEL: 'silent' });
    const logger = createLogger(config.log, 'test');
    @Module({
      // RedisModule first and imported by the root itself: it still ends after UserModule, two imports further.
      imports: [CoreModule.forRoot({ config, logger, process: 'test' }), RedisModule, FeatureModule],
    })
    class RootModule {}

    const app = await NestFactory.createApplicationContext(RootModule, { logger: false });
    const redis = app.get<Redis>(REDIS);
    expect(app.get(UsesRedisAtShutdown).redis).toBe(redis);
    expect(app.select(UserModule).get<Redis>(REDIS)).toBe(redis);
    expect(redis.status).toBe('ready');

    await app.close();
    expect(written).toEqual(['before', 'on']);
    expect(redis.status).toBe('end');
  });
});
