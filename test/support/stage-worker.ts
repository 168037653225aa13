import { getQueueToken } from '@nestjs/bullmq';
import { Module, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Job, Queue } from 'bullmq';
import { ConfigModule, loadConfig } from '@mailguard/config';
import { Metrics } from '@mailguard/metrics';
import {
  JOB_CONTEXT,
  JOB_HANDLERS,
  QueueModule,
  type JobHandlers,
  type QueueName,
  type StageContext,
} from '@mailguard/queue';
import { stageProcessor, WORKER_QUEUE, type StageProcessor } from '@mailguard/worker';
import { TEST_REDIS_URL } from './services';

export interface StageWorker {
  /** Where jobs start (the queues of the prefix). */
  jobs: StageContext;
  /** The worker's own queue. */
  queue: Queue;
  /** Hears every job the worker completes. */
  onCompleted(listener: (job: Job, result: unknown) => void): void;
  close(): Promise<void>;
}

/**
 * A worker of one queue wired as a worker process wires it (QueueModule and the queue's processor,
 * `concurrency` jobs at once), its keys under `redisPrefix`.
 */
export async function startStageWorker(
  queue: QueueName,
  handlers: Partial<JobHandlers>,
  redisPrefix: string,
  concurrency = 1,
): Promise<StageWorker> {
  const config = loadConfig({ REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: redisPrefix });
  const processor = stageProcessor(queue, concurrency);
  @Module({
    imports: [ConfigModule.forRoot(config), QueueModule.forWorkers()],
    providers: [
      { provide: WORKER_QUEUE, useValue: queue },
      { provide: JOB_HANDLERS, useValue: handlers },
      { provide: Metrics, useValue: new Metrics('test') },
      processor,
    ],
  })
  class TestWorkerModule {}
  const app: INestApplicationContext = await NestFactory.createApplicationContext(TestWorkerModule, {
    logger: false,
    abortOnError: false,
  });
  await app.init();
  const worker = app.get<StageProcessor>(processor).worker;
  return {
    jobs: app.get<StageContext>(JOB_CONTEXT),
    queue: app.get<Queue>(getQueueToken(queue)),
    onCompleted: (listener) => worker.on('completed', listener),
    close: () => app.close(),
  };
}
