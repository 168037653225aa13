import type { ResultCache } from '@mailguard/cache';
import { APP_CONFIG, type AppConfig } from '@mailguard/config';
import { ENGINE, EngineModule, RESULT_CACHE, StoresModule } from '@mailguard/core';
import type { VerificationEngine } from '@mailguard/engine';
import { DomainKnowledge } from '@mailguard/feedback';
import { concludeGroupHandler, ListStore } from '@mailguard/lists';
import { Metrics } from '@mailguard/metrics';
import { concludeHandler, listOptions, ResultStore } from '@mailguard/pipeline';
import { runWorker } from '@mailguard/worker';

/** Stage 3: catch-all confidence and the verdict; results are stored in Postgres (list rows settled) and cached. */
void runWorker('scoring-worker', {
  queue: 'scoring',
  // What it ran with while its processor was registered twice (20, taken by two BullMQ workers): the list benches' figures.
  concurrency: 40,
  imports: [EngineModule, StoresModule],
  handlers: {
    inject: [APP_CONFIG, ENGINE, ResultStore, ListStore, RESULT_CACHE, DomainKnowledge, Metrics],
    useFactory: (
      config: AppConfig,
      engine: VerificationEngine,
      store: ResultStore,
      lists: ListStore,
      cache: ResultCache,
      knowledge: DomainKnowledge,
      metrics: Metrics,
    ) => ({
      'scoring.conclude': concludeHandler(engine, store, knowledge, metrics.countCheck),
      'scoring.concludeGroup': concludeGroupHandler(
        engine,
        lists,
        cache,
        knowledge,
        listOptions(config),
        metrics.countCheck,
      ),
    }),
  },
});
