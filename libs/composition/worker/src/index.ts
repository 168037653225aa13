export { runWorker } from './run-worker';
export { StageProcessor, stageProcessor, WORKER_QUEUE } from './stage.processor';
export { WorkerModule, type WorkerKind } from './worker.module';
