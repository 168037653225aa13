export { runWorker } from './run-worker';
export { QUEUE_HANDLERS, StageProcessor, stageProcessor, WORKER_QUEUE } from './stage.processor';
export { LOGGER, REDIS, WorkerCoreModule } from './worker-core.module';
export { WorkerModule, type WorkerKind } from './worker.module';
