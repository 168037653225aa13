import { Global, Module, type DynamicModule } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { Database } from '@mailguard/db';
import type { Logger } from '@mailguard/logger';

export const LOGGER = Symbol('LOGGER');
export const REDIS = Symbol('REDIS');

export interface Infrastructure {
  logger: Logger;
  database: Database;
  /** null when REDIS_URL is unset (in-process mode). */
  redis: Redis | null;
}

/** Connections opened once in main() and shared by every module of the process. */
@Global()
@Module({})
export class InfraModule {
  static forRoot(infra: Infrastructure): DynamicModule {
    return {
      module: InfraModule,
      providers: [
        { provide: LOGGER, useValue: infra.logger },
        { provide: Database, useValue: infra.database },
        { provide: REDIS, useValue: infra.redis },
      ],
      exports: [LOGGER, Database, REDIS],
    };
  }
}
