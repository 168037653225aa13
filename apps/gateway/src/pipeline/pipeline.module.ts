import { Module, type DynamicModule, type Type } from '@nestjs/common';
import type { AppConfig } from '@mailguard/config';
import { EngineModule, MetricsModule, ResultCacheModule, StoresModule, WebhooksModule } from '@mailguard/core';
import { listSweeps } from '@mailguard/lists';
import { STAGE_HANDLERS } from '@mailguard/pipeline';
import { JobHandlersModule, QueueModule } from '@mailguard/queue';
import { queueBoard } from '../http/queue-board';

/**
 * The gateway's job transport: CHECK_PIPELINE, JOB_CONTEXT and QUEUES of QueueModule, built once by
 * GatewayModule and imported by the feature modules that use them (their `withPipeline`). With
 * REDIS_URL the workers do the checks and operators get the queue board (given ADMIN_TOKEN);
 * without it every stage runs here, and the lists that were running when the process stopped are
 * taken up again (their jobs lived in its memory).
 */
@Module({})
export class PipelineModule {
  static forRoot(config: AppConfig): DynamicModule {
    // Without REDIS_URL every stage's handler runs here: the workers' handlers, all of them.
    const handlers = JobHandlersModule.register({
      handlers: STAGE_HANDLERS,
      imports: [StoresModule, EngineModule, WebhooksModule, MetricsModule, ResultCacheModule],
    });
    const queues = QueueModule.forRoot({ config, handlers: [handlers] });
    if (!config.redis.url) {
      return {
        module: PipelineModule,
        imports: [queues, StoresModule],
        providers: listSweeps({ jobsLost: true }),
        exports: [queues],
      };
    }
    const board = config.admin.token ? queueBoard() : [];
    return { module: PipelineModule, imports: [queues, ...board], exports: [queues] };
  }
}

const featureModules = new WeakMap<DynamicModule, Map<Type, DynamicModule>>();

/**
 * `feature` for the gateway of `pipeline`, importing `imports` (the pipeline, or features built on
 * it): the same object for the same two, as Nest makes one module of a dynamic module imported in
 * several places only when it is that one object.
 */
export function pipelineFeature(pipeline: DynamicModule, feature: Type, imports: DynamicModule[]): DynamicModule {
  const features = featureModules.get(pipeline) ?? new Map<Type, DynamicModule>();
  featureModules.set(pipeline, features);
  const module = features.get(feature) ?? { module: feature, imports };
  features.set(feature, module);
  return module;
}
