import { Module, type DynamicModule, type FactoryProvider, type ModuleMetadata } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HEALTH_TARGETS, HealthChecks, type HealthTargets } from './health-checks';
import { PostgresHealthIndicator, QueueHealthIndicator, RedisHealthIndicator } from './indicators';

/** Where the targets come from when they are providers of the process's own modules. */
export interface HealthTargetsAsync {
  imports?: ModuleMetadata['imports'];
  inject?: FactoryProvider['inject'];
  useFactory: (...args: never[]) => HealthTargets | Promise<HealthTargets>;
}

/** Health checks for a process (the gateway; the workers alike), on the dependencies it names. */
@Module({})
export class HealthModule {
  static forRoot(targets: HealthTargets): DynamicModule {
    return HealthModule.forRootAsync({ useFactory: () => targets });
  }

  /** The targets from providers of the process (its database, Redis and CheckPipeline). */
  static forRootAsync(
    targets: Omit<FactoryProvider<HealthTargets>, 'provide'> & Pick<ModuleMetadata, 'imports'>,
  ): DynamicModule {
    const { imports = [], ...factory } = targets;
    const indicators = [PostgresHealthIndicator, RedisHealthIndicator, QueueHealthIndicator];
    return {
      module: HealthModule,
      // A failed check is logged once, as the request that asked for it (the HTTP error filter).
      imports: [TerminusModule.forRoot({ logger: false }), ...imports],
      providers: [{ provide: HEALTH_TARGETS, ...factory }, ...indicators, HealthChecks],
      exports: [HealthChecks, ...indicators],
    };
  }
}
