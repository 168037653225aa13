import { Module } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { DatabaseModule, PROBER, ProberModule, REDIS } from '@mailguard/core';
import { Database } from '@mailguard/db';
import { HealthModule as HealthChecksModule } from '@mailguard/health';
import type { ProberMonitor } from '@mailguard/prober';
import { CHECK_PIPELINE, type CheckPipeline } from '@mailguard/queue';
import { HealthController } from './health.controller';
import { MetricsScrape, MetricsServer } from './metrics';

/**
 * Liveness and readiness (Postgres, Redis and the queues, through terminus; the prober's standing), outside `/v1`,
 * and the Prometheus metrics on METRICS_PORT.
 */
@Module({
  imports: [
    HealthChecksModule.forRootAsync({
      imports: [DatabaseModule, ProberModule],
      inject: [Database, REDIS, CHECK_PIPELINE, PROBER],
      useFactory: (database: Database, redis: Redis | null, queues: CheckPipeline, prober: ProberMonitor) => ({
        database,
        redis,
        queues,
        prober,
      }),
    }),
  ],
  controllers: [HealthController],
  providers: [MetricsScrape, MetricsServer],
  exports: [MetricsScrape, MetricsServer],
})
export class HealthModule {}
