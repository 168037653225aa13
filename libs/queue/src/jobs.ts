import type { VerificationResult } from '@mailguard/engine';

/**
 * Every job of the service, declared once: its queue, its payload and its result. Drivers and
 * handlers are typed from this map, so a payload can never drift from its handler.
 */
export interface JobMap {
  'verify.address': {
    queue: 'verify';
    payload: { email: string; deadlineMs?: number };
    result: VerificationResult;
  };
}

export type JobName = keyof JobMap;
export type JobPayload<N extends JobName> = JobMap[N]['payload'];
export type JobResult<N extends JobName> = JobMap[N]['result'];

export const JOB_QUEUES: { [N in JobName]: JobMap[N]['queue'] } = {
  'verify.address': 'verify',
};

export type JobHandlers = { [N in JobName]: (payload: JobPayload<N>) => Promise<JobResult<N>> };
