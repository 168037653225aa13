import {
  UnrecoverableError,
  WaitingError,
  type ConnectionOptions,
  type Job,
  type Queue,
  type QueueEvents,
} from 'bullmq';
import type { AppConfig } from '@mailguard/config';
import type { ProbeOutcome, ProbeRequest, VerificationResult } from '@mailguard/engine';
import {
  assertHandlers,
  FINAL_JOB,
  JobHandedBack,
  JOB_QUEUES,
  JOB_RETRY,
  jobIdFor,
  probeAnswer,
  probeJob,
  probeJobIds,
  type CheckPipeline,
  type CheckRequest,
  type EnqueueOptions,
  type JobHandlers,
  type JoinOptions,
  type JobName,
  type JobPayload,
  type JobRun,
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

export function bullOptions(config: AppConfig): BullOptions {
  if (!config.redis.url) throw new Error('the distributed pipeline needs REDIS_URL');
  return { connection: { url: config.redis.url }, prefix: `${config.redis.keyPrefix}bull` };
}

/**
 * What `work` settles to within `ms`, else undefined (a failure too): opening and closing wait for
 * Redis, and with Redis gone they would wait forever, so start and shutdown move on after a while.
 */
export function settleWithin<T>(work: Promise<T>, ms = 3_000): Promise<T | undefined> {
  return Promise.race([
    work.catch(() => undefined),
    new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ms).unref()),
  ]);
}

/** BullMQ owns retries: a stage that throws is tried again with backoff; completed jobs expire. */
const JOB_OPTIONS = {
  removeOnComplete: { age: 3_600, count: 50_000 },
  removeOnFail: { age: 86_400 },
} as const;

const retryOptions = (retry: RetryPolicy) => ({
  attempts: retry.attempts,
  backoff: { type: 'exponential', delay: retry.backoffMs },
});

/** Adds jobs to their declared queues (the queues themselves are made and closed by the module wiring). */
export class JobProducer implements StageContext {
  private readonly queues: Map<string, Queue>;

  constructor(queues: Queue[]) {
    this.queues = new Map(queues.map((queue) => [queue.name, queue]));
    // Connection errors surface as failed adds (503) and in readiness; the listener keeps them off stderr.
    for (const queue of queues) queue.on('error', () => undefined);
  }

  queue(name: QueueName): Queue {
    const queue = this.queues.get(name);
    if (!queue) throw new Error(`queue ${name} is not registered`);
    return queue;
  }

  all(): Queue[] {
    return [...this.queues.values()];
  }

  /** The parts wait in one Redis hash per job id; the call that completes them adds the job and lets the hash go. */
  async join<N extends JobName>(
    name: N,
    given: Partial<JobPayload<N>>,
    parts: Array<keyof JobPayload<N>>,
    options: JoinOptions,
  ): Promise<void> {
    const queue = this.queue(JOB_QUEUES[name]);
    const client = await queue.backend.client;
    const key = `${queue.opts.prefix}:join:${options.jobId}`;
    const fields = Object.fromEntries(Object.entries(given).map(([part, value]) => [part, JSON.stringify(value)]));
    // Atomic: of two stages giving their parts at once, exactly one sees them all.
    const replies = await client
      .multi()
      .hset(key, fields)
      .runCommand('pexpire', [key, options.ttlMs])
      .hgetall(key)
      .exec();
    const [error, held] = replies?.[2] ?? [new Error('the join was not answered'), null];
    if (error) throw error;
    const stored = held as Record<string, string>;
    if (!parts.every((part) => typeof part === 'string' && part in stored)) return;
    const payload = Object.fromEntries(Object.entries(stored).map(([part, value]) => [part, JSON.parse(value)]));
    await this.enqueue(name, payload as JobPayload<N>, options);
    await client.del(key);
  }

  async enqueue<N extends JobName>(name: N, payload: JobPayload<N>, options: EnqueueOptions): Promise<void> {
    const kept = options.transient ? { removeOnComplete: true, removeOnFail: true } : JOB_OPTIONS;
    await this.queue(JOB_QUEUES[name]).add(name, payload, {
      ...kept,
      ...retryOptions(options.retry ?? JOB_RETRY),
      jobId: options.jobId,
      delay: options.delayMs,
    });
  }
}

/** The queues whose jobs' results callers wait for: the check's final job, the finder's and insight's probes. */
export const AWAITED_QUEUES: QueueName[] = [JOB_QUEUES[FINAL_JOB], JOB_QUEUES['smtp.probe']];

/**
 * The gateway's side of the distributed pipeline: adds the first job of a check and waits for the
 * final one's completion event (QueueEvents), up to the check's deadline; the finder's and domain
 * insight's probes likewise wait for their smtp job.
 */
export class BullMqPipeline implements CheckPipeline {
  private readonly waiters = new JobWaiters();

  constructor(
    private readonly producer: JobProducer,
    /** Completion events of the AWAITED_QUEUES. */
    private readonly events: QueueEvents[],
  ) {
    for (const queueEvents of events) {
      queueEvents.on('completed', ({ jobId, returnvalue }) => {
        // Every job of the queue completes here: only those waited for are read.
        if (!this.waiters.has(jobId)) return;
        this.waiters.completed(jobId, typeof returnvalue === 'string' ? JSON.parse(returnvalue) : returnvalue);
      });
      // A connection error is reported by readiness; the listener keeps the process from crashing.
      queueEvents.on('error', () => undefined);
    }
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
    const job = probeJob(key, request.inspections, request, { to: 'caller' });
    return this.waiters.wait(probeJobIds(key), request.deadlineAt, probeAnswer, () =>
      this.producer.enqueue('smtp.probe', job, { jobId: first }),
    );
  }

  async ping(): Promise<void> {
    await this.producer.queue('dns').getJobCounts('wait');
  }

  /** The events' connections; the queues are closed by the module that made them. */
  async close(): Promise<void> {
    await settleWithin(Promise.all(this.events.map((events) => events.close())));
  }
}

/** Worker options of every stage: a killed worker's jobs go back to the queue within seconds (stalled-job recovery). */
export const STAGE_WORKER_OPTIONS = { lockDuration: 10_000, stalledInterval: 5_000, maxStalledCount: 3 } as const;

/** The jobs declared on one queue. */
export function jobsOf(queue: QueueName): JobName[] {
  return (Object.keys(JOB_QUEUES) as JobName[]).filter((name) => JOB_QUEUES[name] === queue);
}

/**
 * What a worker of one queue runs for each job: the handler of the job's name. It refuses a handler
 * table that misses a job of the queue or has one too many, and lets errors through so that BullMQ
 * retries (a job name it does not know fails at once, unrecoverably). A job its handler hands back
 * (JobHandedBack, at shutdown) returns to the queue's waiting list under its lock's token, as
 * BullMQ's manual retry does: its attempts unchanged, no stalled-job recovery, and the next worker
 * takes it up at once.
 */
export function jobDispatcher(
  queue: QueueName,
  handlers: Partial<JobHandlers>,
  context: StageContext,
): (job: Job, token: string | undefined, run: JobRun) => Promise<unknown> {
  assertHandlers(handlers, jobsOf(queue));
  return async (job, token, run) => {
    const handler = handlers[job.name as JobName] as
      ((payload: unknown, context: StageContext, run: JobRun) => Promise<unknown>) | undefined;
    if (!handler) throw new UnrecoverableError(`no handler for job ${job.name} on queue ${queue}`);
    try {
      return await handler(job.data, context, run);
    } catch (error) {
      if (!(error instanceof JobHandedBack)) throw error;
      await job.moveToWait(token);
      throw new WaitingError(error.message);
    }
  };
}
