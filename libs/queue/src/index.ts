export { BullMqPipeline, JobProducer, startStageWorker, type BullOptions, type StageWorkerOptions } from './bullmq';
export { InProcessPipeline } from './in-process';
export {
  assertHandlers,
  FINAL_JOB,
  JOB_QUEUES,
  jobIdFor,
  QUEUE_NAMES,
  type CheckPipeline,
  type CheckRequest,
  type JobHandler,
  type JobHandlers,
  type JobMap,
  type JobName,
  type JobPayload,
  type JobResult,
  type QueueName,
  type ScoringPayload,
  type SmtpPayload,
  type StageContext,
} from './jobs';
