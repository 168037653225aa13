import { Module, type DynamicModule } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { DatabaseModule, MetricsModule, PROBER, ProberModule, REDIS, RedisModule } from '@mailguard/core';
import { Database } from '@mailguard/db';
import { HealthModule as HealthChecksModule } from '@mailguard/health';
import type { ProberMonitor } from '@mailguard/prober';
import { CHECK_PIPELINE, type CheckPipeline } from '@mailguard/queue';
import { pipelineFeature } from '../pipeline/pipeline.module';
import { HealthController } from './health.controller';
import { MetricsScrape, MetricsServer } from './metrics';

/**
 * Liveness and readiness (Postgres, Redis and the queues, through terminus; the prober's standing), outside `/v1`,
 * and the Prometheus metrics on METRICS_PORT.
 */
@Module({
  imports: [MetricsModule],
  controllers: [HealthController],
  providers: [MetricsScrape, MetricsServer],
  exports: [MetricsScrape, MetricsServer],
})
export class HealthModule {
  /** With the gateway's job transport (PipelineModule.forRoot): readiness reads it, the scrape its queues. */
  static withPipeline(pipeline: DynamicModule): DynamicModule {
    return pipelineFeature(pipeline, HealthModule, [
      pipeline,
      HealthChecksModule.forRootAsync({
        imports: [DatabaseModule, ProberModule, RedisModule, pipeline],
        inject: [Database, REDIS, CHECK_PIPELINE, PROBER],
        useFactory: (database: Database, redis: Redis | null, queues: CheckPipeline, prober: ProberMonitor) => ({
          database,
          redis,
          queues,
          prober,
        }),
      }),
    ]);
  }
}
