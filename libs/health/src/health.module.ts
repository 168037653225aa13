import { Module, type DynamicModule } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HEALTH_TARGETS, HealthChecks, type HealthTargets } from './health-checks';
import { PostgresHealthIndicator, QueueHealthIndicator, RedisHealthIndicator } from './indicators';

/** Health checks for a process (the gateway; the workers alike), on the dependencies it names. */
@Module({})
export class HealthModule {
  static forRoot(targets: HealthTargets): DynamicModule {
    const indicators = [PostgresHealthIndicator, RedisHealthIndicator, QueueHealthIndicator];
    return {
      module: HealthModule,
      // A failed check is logged once, as the request that asked for it (the HTTP error filter).
      imports: [TerminusModule.forRoot({ logger: false })],
      providers: [{ provide: HEALTH_TARGETS, useValue: targets }, ...indicators, HealthChecks],
      exports: [HealthChecks, ...indicators],
    };
  }
}
