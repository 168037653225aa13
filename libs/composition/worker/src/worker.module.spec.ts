import { randomBytes } from 'node:crypto';
import { NestFactory } from '@nestjs/core';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { loadConfig } from '@mailguard/config';
import { createLogger } from '@mailguard/logger';
import { EngineModule } from '@mailguard/core';
import { JOB_HANDLERS, type JobHandlers } from '@mailguard/queue';
import { WORKER_LIVENESS, type WorkerLiveness } from './worker-http';
import { WorkerModule } from './worker.module';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A worker process's module on the dns queue, booted on Redis as `runWorker` boots it (without the HTTP port). */
function boot(prefix: string) {
  const config = loadConfig({ REDIS_URL, REDIS_PREFIX: prefix, LOG_LEVEL: 'silent' });
  const kind = { queue: 'dns' as const, concurrency: 3, imports: [EngineModule] };
  const logger = createLogger(config.log, 'dns-worker');
  return NestFactory.createApplicationContext(WorkerModule.forRoot({ name: 'dns-worker', kind, config, logger }), {
    logger: false,
  });
}

describe('a worker process', () => {
  it('takes its queue with one BullMQ worker of its concurrency, and closes it on shutdown', async () => {
    const prefix = `mgworkermodule:${randomBytes(6).toString('hex')}:`;
    // Observed, not replaced: every BullMQ worker starts running as it is made (autorun).
    const started = jest.spyOn(Worker.prototype, 'run');
    const queue = new Queue('dns', { connection: { url: REDIS_URL }, prefix: `${prefix}bull` });
    const redis = new Redis(REDIS_URL);
    const app = await boot(prefix);
    try {
      const workers = (started.mock.contexts as Worker[]).filter((worker) => worker.opts.prefix === `${prefix}bull`);
      // Twice the jobs at once (and their payloads in memory) when a second worker takes the queue too.
      expect(workers.map((worker) => [worker.name, worker.concurrency])).toEqual([['dns', 3]]);
      // The handlers of its own queue's jobs only, found among the stage handlers.
      expect(Object.keys(app.get<Partial<JobHandlers>>(JOB_HANDLERS))).toEqual(['dns.inspect']);
      await workers[0].waitUntilReady();
      expect(await queue.getWorkersCount()).toBe(1);
      expect(app.get<WorkerLiveness>(WORKER_LIVENESS).isRunning()).toBe(true);
      await app.close();
      expect(workers[0].isRunning()).toBe(false);
      expect(await queue.getWorkersCount()).toBe(0);
    } finally {
      started.mockRestore();
      await app.close();
      await queue.close();
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    }
  });
});
