import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, Logger, type BeforeApplicationShutdown, type Type } from '@nestjs/common';
import type { Job } from 'bullmq';
import { Metrics } from '@mailguard/metrics';
import {
  JOB_CONTEXT,
  JOB_HANDLERS,
  jobDispatcher,
  STAGE_WORKER_OPTIONS,
  type JobHandlers,
  type QueueName,
  type StageContext,
} from '@mailguard/queue';

/** The queue of the worker process. */
export const WORKER_QUEUE = Symbol('WORKER_QUEUE');

/**
 * Takes the jobs of one queue and runs each with the handler of its name (the same handlers the
 * in-process driver runs). Errors go through to BullMQ, which retries; metrics count every outcome.
 */
export abstract class StageProcessor extends WorkerHost implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Jobs');
  private readonly dispatch: (job: Job) => Promise<unknown>;

  constructor(
    @Inject(WORKER_QUEUE) private readonly queue: QueueName,
    // The handlers of the worker's queue (JobHandlersModule), checked against the queue's jobs here.
    @Inject(JOB_HANDLERS) handlers: Partial<JobHandlers>,
    @Inject(JOB_CONTEXT) jobs: StageContext,
    private readonly metrics: Metrics,
  ) {
    super();
    // Throws at boot when a job of the queue has no handler, or a handler no job.
    this.dispatch = jobDispatcher(queue, handlers, jobs);
  }

  process(job: Job): Promise<unknown> {
    return this.dispatch(job);
  }

  @OnWorkerEvent('completed')
  completed(job: Job): void {
    this.metrics.jobs.inc({ queue: this.queue, job: job.name, outcome: 'completed' });
    if (job.processedOn && job.finishedOn) {
      this.metrics.jobDuration.observe({ queue: this.queue, job: job.name }, (job.finishedOn - job.processedOn) / 1000);
    }
  }

  /** Every failed attempt: BullMQ retries it unless it was the last. */
  @OnWorkerEvent('failed')
  failed(job: Job | undefined, error: Error): void {
    this.metrics.jobs.inc({ queue: this.queue, job: job?.name ?? 'unknown', outcome: 'failed' });
    this.logger.warn(`job ${job?.name} ${job?.id} failed (attempt ${job?.attemptsMade}): ${error.message}`);
  }

  /** Connection errors: BullMQ reconnects by itself; the listener keeps them from crashing the process. */
  @OnWorkerEvent('error')
  error(): void {}

  /** Jobs in flight finish (and add their next stages) before the queues close on shutdown. */
  async beforeApplicationShutdown(signal?: string): Promise<void> {
    this.logger.log(`shutting down (${signal ?? 'closed'}): finishing jobs in flight`);
    await this.worker.close();
  }
}

/** The processor class of one queue, taking `concurrency` jobs at once (read from the configuration). */
export function stageProcessor(queue: QueueName, concurrency: number): Type<StageProcessor> {
  @Processor(queue, { concurrency, ...STAGE_WORKER_OPTIONS })
  class QueueProcessor extends StageProcessor {}
  return QueueProcessor;
}
