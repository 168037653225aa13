import { Module } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { DatabaseModule, REDIS } from '@mailguard/core';
import { Database } from '@mailguard/db';
import { HealthModule as HealthChecksModule } from '@mailguard/health';
import { CHECK_PIPELINE, type CheckPipeline } from '@mailguard/queue';
import { HealthController } from './health.controller';
import { MetricsController } from './metrics.controller';

/** Liveness, readiness (Postgres, Redis and the queues, through terminus) and `/metrics`, outside `/v1`. */
@Module({
  imports: [
    HealthChecksModule.forRootAsync({
      imports: [DatabaseModule],
      inject: [Database, REDIS, CHECK_PIPELINE],
      useFactory: (database: Database, redis: Redis | null, queues: CheckPipeline) => ({ database, redis, queues }),
    }),
  ],
  controllers: [HealthController, MetricsController],
})
export class HealthModule {}
