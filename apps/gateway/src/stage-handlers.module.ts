import { Module } from '@nestjs/common';
import type { ResultCache } from '@mailguard/cache';
import { APP_CONFIG, type AppConfig } from '@mailguard/config';
import type { VerificationEngine } from '@mailguard/engine';
import { DomainKnowledge } from '@mailguard/feedback';
import { ListStore } from '@mailguard/lists';
import { createOutbound } from '@mailguard/net';
import { listOptions, stageHandlers, type ResultStore } from '@mailguard/pipeline';
import { JOB_HANDLERS } from '@mailguard/queue';
import { ENGINE, RESULT_CACHE, RESULT_STORE } from './infra.module';

/** Every stage's handler, for the in-process driver (without REDIS_URL the gateway runs the jobs itself). */
@Module({
  providers: [
    {
      provide: JOB_HANDLERS,
      inject: [APP_CONFIG, ENGINE, RESULT_STORE, ListStore, RESULT_CACHE, DomainKnowledge],
      useFactory: (
        config: AppConfig,
        engine: VerificationEngine,
        store: ResultStore,
        lists: ListStore,
        cache: ResultCache,
        knowledge: DomainKnowledge,
      ) => stageHandlers(engine, store, lists, cache, knowledge, listOptions(config), createOutbound(config)),
    },
  ],
  exports: [JOB_HANDLERS],
})
export class StageHandlersModule {}
