export { InProcessDriver, type QueueDriver } from './driver';
export { JOB_QUEUES, type JobHandlers, type JobMap, type JobName, type JobPayload, type JobResult } from './jobs';
