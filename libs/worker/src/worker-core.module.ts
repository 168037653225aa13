import { Global, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { Inject } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { ConfigModule, type AppConfig, type WorkerName } from '@mailguard/config';
import { Database } from '@mailguard/db';
import type { Logger } from '@mailguard/logger';
import { Metrics } from '@mailguard/metrics';
import { connectRedis, createRedis } from '@mailguard/redis';

export const REDIS = Symbol('REDIS');
export const LOGGER = Symbol('LOGGER');

/** The connections of a worker process: configuration, Redis (required), Postgres when its stage stores results. */
@Global()
@Module({})
export class WorkerCoreModule implements OnApplicationShutdown {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly database: Database,
  ) {}

  static forRoot(options: { config: AppConfig; logger: Logger; process: WorkerName; database: boolean }): DynamicModule {
    const { config, logger } = options;
    const providers = [
      { provide: LOGGER, useValue: logger },
      { provide: Metrics, useValue: new Metrics(options.process) },
      {
        provide: REDIS,
        useFactory: async () => {
          const redis = createRedis(config.redis) as Redis;
          redis.on('error', (err: Error) => logger.warn({ err: err.message }, 'redis connection error'));
          await connectRedis(redis);
          return redis;
        },
      },
      {
        provide: Database,
        useFactory: async () => {
          const database = new Database(config.database, logger);
          if (options.database) await database.start();
          return database;
        },
      },
    ];
    return {
      module: WorkerCoreModule,
      imports: [ConfigModule.forRoot(config)],
      providers,
      exports: [ConfigModule, ...providers.map(({ provide }) => provide)],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.database.stop();
    this.redis.disconnect();
  }
}
