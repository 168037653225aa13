import { Module, type DynamicModule } from '@nestjs/common';
import type { AppConfig } from '@mailguard/config';
import { EngineModule, StoresModule, WebhooksModule } from '@mailguard/core';
import { listSweeps } from '@mailguard/lists';
import { STAGE_HANDLERS } from '@mailguard/pipeline';
import { JobHandlersModule, QueueModule } from '@mailguard/queue';
import { queueBoard } from '../http/queue-board';

/**
 * The gateway's job transport, for every feature module (global): CHECK_PIPELINE and QUEUES of
 * QueueModule. With REDIS_URL the workers do the checks and operators get the queue board (given
 * ADMIN_TOKEN); without it every stage runs here, and the lists that were running when the process
 * stopped are taken up again (their jobs lived in its memory).
 */
@Module({})
export class PipelineModule {
  static forRoot(config: AppConfig): DynamicModule {
    // Without REDIS_URL every stage's handler runs here: the workers' handlers, all of them.
    const handlers = JobHandlersModule.register({
      handlers: STAGE_HANDLERS,
      imports: [StoresModule, EngineModule, WebhooksModule],
    });
    const queues = QueueModule.forRoot({ config, handlers: [handlers] });
    if (!config.redis.url) {
      return {
        module: PipelineModule,
        global: true,
        imports: [queues, StoresModule],
        providers: listSweeps({ jobsLost: true }),
        exports: [queues],
      };
    }
    const board = config.admin.token ? queueBoard(config.admin.token) : [];
    return { module: PipelineModule, global: true, imports: [queues, ...board], exports: [queues] };
  }
}
