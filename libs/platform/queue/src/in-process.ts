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
  QUEUE_NAMES,
  type CheckPipeline,
  type CheckRequest,
  type JobHandlers,
  type JobName,
  type JobPayload,
  type JoinOptions,
  type JobRun,
  type QueueName,
  type RetryPolicy,
  type StageContext,
} from './jobs';
import { JobWaiters } from './waiters';

/**
 * Runs every stage in this process, through the same handlers the workers run. Used when REDIS_URL
 * is unset (one process, nothing installed). Jobs live in memory: a list that was running when
 * the process stopped is taken up again at start (`list.feed` from the rows in Postgres).
 * `queues`: the queues this process serves (the CLI serves only `smtp`, for the finder).
 */
export class InProcessPipeline implements CheckPipeline {
  private readonly waiters = new JobWaiters();
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Ids of transient jobs waiting or running. */
  private readonly transient = new Set<string>();
  /** Parts of joined jobs still waiting for the others, by job id. */
  private readonly joins = new Map<string, { given: Record<string, unknown>; timer: NodeJS.Timeout }>();
  private closed = false;
  /** Aborted at close: a job that can stop early does (its work is taken up again at the next start). */
  private readonly stopping = new AbortController();

  constructor(
    private readonly handlers: Partial<JobHandlers>,
    private readonly onError: (error: unknown, job: JobName) => void,
    queues: QueueName[] = QUEUE_NAMES,
  ) {
    assertHandlers(
      handlers,
      (Object.keys(JOB_QUEUES) as JobName[]).filter((name) => queues.includes(JOB_QUEUES[name])),
    );
  }

  readonly jobs: StageContext = {
    enqueue: async (name, payload, { jobId, delayMs, retry, transient }) => {
      if (!transient) return this.later(delayMs ?? 0, () => this.run(name, payload, jobId, retry ?? JOB_RETRY, 1));
      if (this.transient.has(jobId)) return;
      this.transient.add(jobId);
      this.later(delayMs ?? 0, () =>
        this.run(name, payload, jobId, retry ?? JOB_RETRY, 1, () => this.transient.delete(jobId)),
      );
    },
    join: (name, given, parts, options) => this.join(name, given, parts, options),
  };

  /** Parts waiting for the others, by job id (for tests: each goes once its job is added or its time is up). */
  get joining(): number {
    return this.joins.size;
  }

  private join<N extends JobName>(
    name: N,
    given: Partial<JobPayload<N>>,
    parts: Array<keyof JobPayload<N>>,
    options: JoinOptions,
  ): Promise<void> {
    const { jobId, ttlMs } = options;
    let entry = this.joins.get(jobId);
    if (!entry) {
      const timer = setTimeout(() => this.joins.delete(jobId), ttlMs);
      timer.unref();
      entry = { given: {}, timer };
      this.joins.set(jobId, entry);
    }
    Object.assign(entry.given, given);
    const held = entry.given;
    if (!parts.every((part) => part in held)) return Promise.resolve();
    clearTimeout(entry.timer);
    this.joins.delete(jobId);
    return this.jobs.enqueue(name, held as unknown as JobPayload<N>, options);
  }

  private later(delayMs: number, work: () => Promise<void>): void {
    if (this.closed) return;
    if (!delayMs) return void setImmediate(() => void work());
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void work();
    }, delayMs);
    this.timers.add(timer);
  }

  /** A failed job is tried again with backoff, as BullMQ would; after the last attempt it is reported. */
  private async run<N extends JobName>(
    name: N,
    payload: JobPayload<N>,
    jobId: string,
    retry: RetryPolicy,
    attempt: number,
    ended = () => undefined as unknown,
  ): Promise<void> {
    const handler = this.handlers[name] as
      ((payload: JobPayload<N>, context: StageContext, run: JobRun) => Promise<unknown>) | undefined;
    try {
      if (!handler) throw new Error(`no handler for job ${name} in this process`);
      const result = await handler(payload, this.jobs, { stopping: this.stopping.signal });
      ended();
      this.waiters.completed(jobId, result);
    } catch (error) {
      // Stopped because this process is closing: nothing failed, and nothing is left to run it again.
      if (error instanceof JobHandedBack) return void ended();
      this.onError(error, name);
      if (attempt < retry.attempts)
        this.later(retry.backoffMs * 2 ** (attempt - 1), () =>
          this.run(name, payload, jobId, retry, attempt + 1, ended),
        );
      else ended();
    }
  }

  verify(request: CheckRequest): Promise<VerificationResult | null> {
    return this.waiters.wait(
      [jobIdFor(request.requestId, FINAL_JOB)],
      request.deadlineAt,
      (result) => result as VerificationResult,
      () => this.jobs.enqueue('dns.inspect', request, { jobId: jobIdFor(request.requestId, 'dns.inspect') }),
    );
  }

  probe(key: string, request: ProbeRequest): Promise<ProbeOutcome[] | null> {
    const [first] = probeJobIds(key);
    return this.waiters.wait(probeJobIds(key), request.deadlineAt, probeAnswer, () =>
      this.jobs.enqueue('smtp.probe', probeJob(key, request.inspections, request, { to: 'caller' }), { jobId: first }),
    );
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    this.closed = true;
    this.stopping.abort();
    for (const { timer } of this.joins.values()) clearTimeout(timer);
    this.joins.clear();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}
