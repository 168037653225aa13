export { BullMqPipeline, JobProducer, startStageWorker, type BullOptions, type StageWorkerOptions } from './bullmq';
export { ClockWatchdog, type ClockWatchdogOptions } from './clock-watchdog';
export { InProcessPipeline } from './in-process';
export {
  assertHandlers,
  FINAL_JOB,
  JOB_QUEUES,
  JOB_RETRY,
  jobIdFor,
  QUEUE_NAMES,
  type CheckPipeline,
  type CheckRequest,
  type EnqueueOptions,
  type GroupPayload,
  type GroupScoringPayload,
  type ListPayload,
  type RetryPolicy,
  type WebhookPayload,
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
