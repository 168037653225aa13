import { Module } from '@nestjs/common';
import type { ResultCache } from '@mailguard/cache';
import { APP_CONFIG, type AppConfig } from '@mailguard/config';
import {
  ENGINE,
  EngineModule,
  MetricsModule,
  RESULT_CACHE,
  ResultCacheModule,
  StoresModule,
  WebhooksModule,
} from '@mailguard/core';
import type { VerificationEngine } from '@mailguard/engine';
import { DomainKnowledge } from '@mailguard/feedback';
import { ListStore, WebhookOutbox } from '@mailguard/lists';
import { Metrics } from '@mailguard/metrics';
import { listOptions, ResultStore, stageHandlers } from '@mailguard/pipeline';
import { JOB_HANDLERS } from '@mailguard/queue';

/** Every stage's handler, for the in-process driver (without REDIS_URL the gateway runs the jobs itself). */
@Module({
  imports: [StoresModule, EngineModule, WebhooksModule, ResultCacheModule, MetricsModule],
  providers: [
    {
      provide: JOB_HANDLERS,
      inject: [APP_CONFIG, ENGINE, ResultStore, ListStore, RESULT_CACHE, DomainKnowledge, WebhookOutbox, Metrics],
      useFactory: (
        config: AppConfig,
        engine: VerificationEngine,
        store: ResultStore,
        lists: ListStore,
        cache: ResultCache,
        knowledge: DomainKnowledge,
        outbox: WebhookOutbox,
        metrics: Metrics,
      ) => stageHandlers(engine, store, lists, cache, knowledge, listOptions(config), outbox, metrics.countCheck),
    },
  ],
  exports: [JOB_HANDLERS],
})
export class StageHandlersModule {}
