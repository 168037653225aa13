import { Module } from '@nestjs/common';
import { DatabaseModule } from '@mailguard/core';
import { HealthController } from './health.controller';
import { MetricsController } from './metrics.controller';

/** Liveness, readiness and `/metrics`, outside `/v1`. */
@Module({
  imports: [DatabaseModule],
  controllers: [HealthController, MetricsController],
})
export class HealthModule {}
