import { JOB_QUEUES, type JobHandlers, type JobName, type JobPayload, type JobResult } from './jobs';

/** Where the gateway sends work: in this process (embedded default) or to workers over BullMQ. */
export interface QueueDriver {
  run<N extends JobName>(name: N, payload: JobPayload<N>): Promise<JobResult<N>>;
  close(): Promise<void>;
}

/**
 * Runs jobs in the calling process. Refuses to start with a handler missing or unknown, so a job
 * can never be sent where nothing will take it.
 */
export class InProcessDriver implements QueueDriver {
  constructor(private readonly handlers: JobHandlers) {
    const declared = Object.keys(JOB_QUEUES).sort();
    const given = Object.keys(handlers).sort();
    if (declared.join() !== given.join()) {
      throw new Error(`queue handlers do not match the declared jobs: declared ${declared.join(', ')}; given ${given.join(', ')}`);
    }
  }

  run<N extends JobName>(name: N, payload: JobPayload<N>): Promise<JobResult<N>> {
    const handler = this.handlers[name] as (payload: JobPayload<N>) => Promise<JobResult<N>>;
    return handler(payload);
  }

  async close(): Promise<void> {}
}
