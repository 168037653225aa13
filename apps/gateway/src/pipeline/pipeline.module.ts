import { Inject, Module, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { Queue } from 'bullmq';
import type { ResultCache } from '@mailguard/cache';
import { APP_CONFIG, type AppConfig } from '@mailguard/config';
import { ENGINE, EngineModule, LOGGER, OUTBOUND, RESULT_CACHE, StoresModule } from '@mailguard/core';
import type { VerificationEngine } from '@mailguard/engine';
import { DomainKnowledge } from '@mailguard/feedback';
import { ListStore, startSweeps } from '@mailguard/lists';
import type { Logger } from '@mailguard/logger';
import type { Outbound } from '@mailguard/net';
import { bullOptions, listOptions, ResultStore, stageHandlers } from '@mailguard/pipeline';
import { BullMqPipeline, CHECK_PIPELINE, InProcessPipeline, type CheckPipeline } from '@mailguard/queue';

/** The BullMQ queues (distributed mode), for the queue board and the metrics; empty in-process. */
export const QUEUES = Symbol('QUEUES');

/**
 * Distributed (REDIS_URL): the dns, smtp and scoring workers do the checks and this process only
 * waits; else every stage runs here, through the same handlers the workers run.
 */
async function openPipeline(
  config: AppConfig,
  logger: Logger,
  engine: VerificationEngine,
  store: ResultStore,
  lists: ListStore,
  cache: ResultCache,
  knowledge: DomainKnowledge,
  outbound: Outbound,
): Promise<CheckPipeline> {
  if (config.redis.url) {
    const bull = new BullMqPipeline(bullOptions(config));
    // Redis may be down at start: readiness says so, and the listener attaches when it comes back.
    const ready = await Promise.race([bull.start().then(() => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), 3_000).unref())]);
    if (!ready) logger.warn('queue events not ready yet');
    return bull;
  }
  const handlers = stageHandlers(engine, store, lists, cache, knowledge, listOptions(config), outbound);
  return new InProcessPipeline(handlers, (err, job) => logger.error({ err, job }, 'job failed'));
}

/** The gateway's `CheckPipeline`; in process, it also takes up the lists that were running. */
@Module({
  imports: [StoresModule, EngineModule],
  providers: [
    {
      provide: CHECK_PIPELINE,
      inject: [APP_CONFIG, LOGGER, ENGINE, ResultStore, ListStore, RESULT_CACHE, DomainKnowledge, OUTBOUND],
      useFactory: openPipeline,
    },
    { provide: QUEUES, inject: [CHECK_PIPELINE], useFactory: (pipeline: CheckPipeline): Queue[] => (pipeline instanceof BullMqPipeline ? pipeline.queues : []) },
  ],
  exports: [CHECK_PIPELINE, QUEUES],
})
export class PipelineModule implements OnModuleInit, OnApplicationShutdown {
  private sweeps: { stop(): void } | null = null;

  constructor(
    @Inject(CHECK_PIPELINE) private readonly pipeline: CheckPipeline,
    private readonly lists: ListStore,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onModuleInit(): void {
    if (!(this.pipeline instanceof InProcessPipeline)) return;
    // One process holds every job in memory: lists that were running when it stopped start again.
    this.sweeps = startSweeps(this.lists, this.pipeline.jobs, {
      jobsLost: true,
      onError: (err) => this.logger.warn({ err }, 'could not sweep the running lists; trying again at the next sweep'),
    });
  }

  /** After the HTTP server (nothing waits on a check any more), before the stores' database. */
  async onApplicationShutdown(): Promise<void> {
    this.sweeps?.stop();
    await this.pipeline.close();
  }
}
