import type { VerificationResult } from '@mailguard/engine';
import { assertHandlers, FINAL_JOB, JOB_QUEUES, type CheckPipeline, type CheckRequest, type JobHandlers, type JobName, type JobPayload, type StageContext } from './jobs';

/**
 * Runs every stage in this process, through the same handlers the workers run. Used when REDIS_URL
 * is unset (one process, nothing installed).
 */
export class InProcessPipeline implements CheckPipeline {
  private readonly waiters = new Map<string, (result: VerificationResult) => void>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly handlers: JobHandlers,
    private readonly onError: (error: unknown, job: JobName) => void,
  ) {
    assertHandlers(handlers, Object.keys(JOB_QUEUES) as JobName[]);
  }

  private readonly context: StageContext = {
    enqueue: async (name, payload, { delayMs }) => {
      const run = () => void this.run(name, payload);
      if (!delayMs) return void setImmediate(run);
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        run();
      }, delayMs);
      this.timers.add(timer);
    },
  };

  private async run<N extends JobName>(name: N, payload: JobPayload<N>): Promise<void> {
    const handler = this.handlers[name] as (payload: JobPayload<N>, context: StageContext) => Promise<unknown>;
    try {
      const result = await handler(payload, this.context);
      if (name === FINAL_JOB) this.settle((payload as JobPayload<typeof FINAL_JOB>).request.requestId, result as VerificationResult);
    } catch (error) {
      // No retries in one process: the check goes unanswered and the caller's deadline makes it unknown.
      this.onError(error, name);
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
      void this.run('dns.inspect', request);
    });
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}
