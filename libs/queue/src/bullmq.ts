import { Queue, QueueEvents, UnrecoverableError, Worker, type ConnectionOptions, type Job } from 'bullmq';
import type { ProbeOutcome, ProbeRequest, VerificationResult } from '@mailguard/engine';
import {
  assertHandlers,
  FINAL_JOB,
  JOB_QUEUES,
  JOB_RETRY,
  jobIdFor,
  probeAnswer,
  probeJob,
  probeJobIds,
  QUEUE_NAMES,
  type CheckPipeline,
  type CheckRequest,
  type EnqueueOptions,
  type JobHandlers,
  type JobName,
  type JobPayload,
  type QueueName,
  type RetryPolicy,
  type StageContext,
} from './jobs';
import { JobWaiters } from './waiters';

export interface BullOptions {
  connection: ConnectionOptions;
  /** Key prefix of every queue (REDIS_PREFIX + "bull"), so deployments and tests can share a Redis. */
  prefix: string;
}

/** Closing waits for Redis; with Redis gone it would wait forever, so shutdown moves on after a while. */
function closeWithin(closing: Promise<unknown>, ms = 3_000): Promise<unknown> {
  return Promise.race([closing.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, ms).unref())]);
}

/** BullMQ owns retries: a stage that throws is tried again with backoff; completed jobs expire. */
const JOB_OPTIONS = {
  removeOnComplete: { age: 3_600, count: 50_000 },
  removeOnFail: { age: 86_400 },
} as const;

const retryOptions = (retry: RetryPolicy) => ({ attempts: retry.attempts, backoff: { type: 'exponential', delay: retry.backoffMs } });

/** Adds jobs to their declared queues. */
export class JobProducer implements StageContext {
  private readonly queues: Map<QueueName, Queue>;

  constructor(options: BullOptions) {
    this.queues = new Map(QUEUE_NAMES.map((name) => [name, new Queue(name, { connection: options.connection, prefix: options.prefix })]));
    // Connection errors surface as failed adds (503) and in readiness; the listener keeps them off stderr.
    for (const queue of this.queues.values()) queue.on('error', () => undefined);
  }

  queue(name: QueueName): Queue {
    return this.queues.get(name) as Queue;
  }

  all(): Queue[] {
    return [...this.queues.values()];
  }

  async enqueue<N extends JobName>(name: N, payload: JobPayload<N>, options: EnqueueOptions): Promise<void> {
    const kept = options.transient ? { removeOnComplete: true, removeOnFail: true } : JOB_OPTIONS;
    await this.queue(JOB_QUEUES[name]).add(name, payload, { ...kept, ...retryOptions(options.retry ?? JOB_RETRY), jobId: options.jobId, delay: options.delayMs });
  }

  async close(): Promise<void> {
    await closeWithin(Promise.all(this.all().map((queue) => queue.close())));
  }
}

/**
 * The gateway's side of the distributed pipeline: adds the first job of a check and waits for the
 * final one's completion event (QueueEvents), up to the check's deadline; the finder's and domain
 * insight's probes likewise wait for their smtp job.
 */
export class BullMqPipeline implements CheckPipeline {
  private readonly producer: JobProducer;
  /** Completion events of the queues whose results callers wait for. */
  private readonly events: QueueEvents[];
  private readonly waiters = new JobWaiters();

  constructor(options: BullOptions) {
    this.producer = new JobProducer(options);
    this.events = [JOB_QUEUES[FINAL_JOB], JOB_QUEUES['smtp.probe']].map((queue) => {
      const events = new QueueEvents(queue, { connection: options.connection, prefix: options.prefix });
      events.on('completed', ({ jobId, returnvalue }) => {
        // Every job of the queue completes here: only those waited for are read.
        if (!this.waiters.has(jobId)) return;
        this.waiters.completed(jobId, typeof returnvalue === 'string' ? JSON.parse(returnvalue) : returnvalue);
      });
      // A connection error is reported by readiness; the listener keeps the process from crashing.
      events.on('error', () => undefined);
      return events;
    });
  }

  get queues(): Queue[] {
    return this.producer.all();
  }

  get jobs(): StageContext {
    return this.producer;
  }

  async start(): Promise<void> {
    await Promise.all(this.events.map((events) => events.waitUntilReady()));
  }

  verify(request: CheckRequest): Promise<VerificationResult | null> {
    return this.waiters.wait(
      [jobIdFor(request.requestId, FINAL_JOB)],
      request.deadlineAt,
      (result) => result as VerificationResult,
      () => this.producer.enqueue('dns.inspect', request, { jobId: jobIdFor(request.requestId, 'dns.inspect') }),
    );
  }

  probe(key: string, request: ProbeRequest): Promise<ProbeOutcome[] | null> {
    const [first] = probeJobIds(key);
    return this.waiters.wait(probeJobIds(key), request.deadlineAt, probeAnswer, () => this.producer.enqueue('smtp.probe', probeJob(key, request.inspections, request, { to: 'caller' }), { jobId: first }));
  }

  async ping(): Promise<void> {
    await this.producer.queue('dns').getJobCounts('wait');
  }

  async close(): Promise<void> {
    await closeWithin(Promise.all(this.events.map((events) => events.close())));
    await this.producer.close();
  }
}

export interface StageWorkerOptions extends BullOptions {
  concurrency: number;
  /** Receives every failed attempt (BullMQ retries it unless it was the last). */
  onFailed?: (job: Job | undefined, error: Error) => void;
}

/**
 * A worker for one queue: it finds the handler of each job by name, refuses to start when a job of
 * its queue has no handler, and lets errors through so that BullMQ retries (a job name it does not
 * know fails at once, unrecoverably).
 */
export function startStageWorker(queue: QueueName, handlers: Partial<JobHandlers>, options: StageWorkerOptions): { worker: Worker; producer: JobProducer } {
  const names = (Object.keys(JOB_QUEUES) as JobName[]).filter((name) => JOB_QUEUES[name] === queue);
  assertHandlers(handlers, names);
  const producer = new JobProducer(options);
  const worker = new Worker(
    queue,
    async (job: Job) => {
      const name = job.name as JobName;
      const handler = handlers[name] as ((payload: unknown, context: StageContext) => Promise<unknown>) | undefined;
      if (!handler) throw new UnrecoverableError(`no handler for job ${job.name} on queue ${queue}`);
      return handler(job.data, producer);
    },
    {
      connection: options.connection,
      prefix: options.prefix,
      concurrency: options.concurrency,
      // A killed worker's jobs go back to the queue within seconds (stalled-job recovery).
      lockDuration: 10_000,
      stalledInterval: 5_000,
      maxStalledCount: 3,
    },
  );
  worker.on('failed', (job, error) => options.onFailed?.(job, error));
  worker.on('error', () => undefined);
  return { worker, producer };
}
