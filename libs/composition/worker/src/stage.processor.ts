import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, Logger, type BeforeApplicationShutdown, type Type } from '@nestjs/common';
import { WaitingError, type Job } from 'bullmq';
import { Metrics } from '@mailguard/metrics';
import {
  JOB_CONTEXT,
  JOB_HANDLERS,
  jobDispatcher,
  STAGE_WORKER_OPTIONS,
  type JobHandlers,
  type JobRun,
  type QueueName,
  type StageContext,
} from '@mailguard/queue';

/** The queue of the worker process. */
export const WORKER_QUEUE = Symbol('WORKER_QUEUE');

/**
 * Takes the jobs of one queue and runs each with the handler of its name (the same handlers the
 * in-process driver runs). Errors go through to BullMQ, which retries; metrics count every outcome.
 * At shutdown it takes no more jobs, tells those in flight (JobRun.stopping), and waits for each to
 * end or be handed back before the process's connections close.
 */
export abstract class StageProcessor extends WorkerHost implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Jobs');
  private readonly dispatch: (job: Job, token: string | undefined, run: JobRun) => Promise<unknown>;
  private readonly stopping = new AbortController();

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

  async process(job: Job, token?: string): Promise<unknown> {
    try {
      return await this.dispatch(job, token, { stopping: this.stopping.signal });
    } catch (error) {
      if (error instanceof WaitingError) this.logger.log(`job ${job.name} ${job.id} handed back to the queue`);
      throw error;
    }
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

  /**
   * No job is taken from now on; those in flight finish (and add their next stages) or are handed
   * back at their next checkpoint, before the queues close. Runs first of the shutdown hooks (the
   * processor is in the process's root module), so nothing a job uses is closed under it.
   */
  async beforeApplicationShutdown(signal?: string): Promise<void> {
    this.logger.log(`shutting down (${signal ?? 'closed'}): finishing jobs in flight`);
    this.stopping.abort();
    await this.worker.close();
  }
}

/** The processor class of one queue, taking `concurrency` jobs at once (read from the configuration). */
export function stageProcessor(queue: QueueName, concurrency: number): Type<StageProcessor> {
  @Processor(queue, { concurrency, ...STAGE_WORKER_OPTIONS })
  class QueueProcessor extends StageProcessor {}
  return QueueProcessor;
}
