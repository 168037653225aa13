export { runWorker, type WorkerContext, type WorkerKind } from './run-worker';
