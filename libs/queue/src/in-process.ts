import type { VerificationResult } from '@mailguard/engine';
import { assertHandlers, FINAL_JOB, JOB_QUEUES, JOB_RETRY, type CheckPipeline, type CheckRequest, type JobHandlers, type JobName, type JobPayload, type RetryPolicy, type StageContext } from './jobs';

/**
 * Runs every stage in this process, through the same handlers the workers run. Used when REDIS_URL
 * is unset (one process, nothing installed). Jobs live in memory: a list that was running when
 * the process stopped is taken up again at start (`list.feed` from the rows in Postgres).
 */
export class InProcessPipeline implements CheckPipeline {
  private readonly waiters = new Map<string, (result: VerificationResult) => void>();
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Ids of transient jobs waiting or running. */
  private readonly transient = new Set<string>();
  private closed = false;

  constructor(
    private readonly handlers: JobHandlers,
    private readonly onError: (error: unknown, job: JobName) => void,
  ) {
    assertHandlers(handlers, Object.keys(JOB_QUEUES) as JobName[]);
  }

  readonly jobs: StageContext = {
    enqueue: async (name, payload, { jobId, delayMs, retry, transient }) => {
      if (!transient) return this.later(delayMs ?? 0, () => this.run(name, payload, retry ?? JOB_RETRY, 1));
      if (this.transient.has(jobId)) return;
      this.transient.add(jobId);
      this.later(delayMs ?? 0, () => this.run(name, payload, retry ?? JOB_RETRY, 1, () => this.transient.delete(jobId)));
    },
  };

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
  private async run<N extends JobName>(name: N, payload: JobPayload<N>, retry: RetryPolicy, attempt: number, ended = () => undefined as unknown): Promise<void> {
    const handler = this.handlers[name] as (payload: JobPayload<N>, context: StageContext) => Promise<unknown>;
    try {
      const result = await handler(payload, this.jobs);
      ended();
      if (name === FINAL_JOB) this.settle((payload as JobPayload<typeof FINAL_JOB>).request.requestId, result as VerificationResult);
    } catch (error) {
      this.onError(error, name);
      if (attempt < retry.attempts) this.later(retry.backoffMs * 2 ** (attempt - 1), () => this.run(name, payload, retry, attempt + 1, ended));
      else ended();
    }
  }

  private settle(requestId: string, result: VerificationResult): void {
    this.waiters.get(requestId)?.(result);
    this.waiters.delete(requestId);
  }

  verify(request: CheckRequest): Promise<VerificationResult | null> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters.delete(request.requestId);
        resolve(null);
      }, Math.max(0, request.deadlineAt - Date.now()));
      this.waiters.set(request.requestId, (result) => {
        clearTimeout(timer);
        resolve(result);
      });
      void this.run('dns.inspect', request, JOB_RETRY, 1);
    });
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}
