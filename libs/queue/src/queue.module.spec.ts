import { randomBytes } from 'node:crypto';
import { Module, type DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { ConfigModule, loadConfig } from '@mailguard/config';
import { BullMqPipeline } from './bullmq';
import { InProcessPipeline } from './in-process';
import {
  CHECK_PIPELINE,
  JOB_QUEUES,
  QUEUE_NAMES,
  type CheckPipeline,
  type JobHandlers,
  type JobName,
  type StageContext,
} from './jobs';
import { JOB_CONTEXT, JOB_HANDLERS, QueueModule, QUEUES } from './queue.module';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A handler table whose handlers tell which job ran, with its list id. */
function recordingHandlers(ran: (job: string) => void): JobHandlers {
  const entries = (Object.keys(JOB_QUEUES) as JobName[]).map((name) => [
    name,
    async (payload: { listId?: string }) => {
      ran(`${name}:${payload.listId}`);
      return {};
    },
  ]);
  return Object.fromEntries(entries) as unknown as JobHandlers;
}

function boot(env: Record<string, string>, handlers: JobHandlers) {
  const config = loadConfig(env);
  @Module({ providers: [{ provide: JOB_HANDLERS, useValue: handlers }], exports: [JOB_HANDLERS] })
  class HandlersModule {}
  const queues: DynamicModule = QueueModule.forRoot({ config, handlers: [HandlersModule] });
  @Module({ imports: [ConfigModule.forRoot(config), queues] })
  class TestModule {}
  return NestFactory.createApplicationContext(TestModule, { logger: false });
}

describe('QueueModule.forRoot', () => {
  it('without REDIS_URL: the in-process driver behind CHECK_PIPELINE runs the JOB_HANDLERS, and there are no queues', async () => {
    let heard: (job: string) => void = () => undefined;
    const ran = new Promise<string>((resolve) => (heard = resolve));
    const app = await boot(
      {},
      recordingHandlers((job) => heard(job)),
    );
    try {
      expect(app.get<CheckPipeline>(CHECK_PIPELINE)).toBeInstanceOf(InProcessPipeline);
      expect(app.get<Queue[]>(QUEUES)).toEqual([]);
      await app.get<StageContext>(JOB_CONTEXT).enqueue('list.feed', { listId: 'lst_1' }, { jobId: 'lst_1.feed' });
      expect(await ran).toBe('list.feed:lst_1');
    } finally {
      await app.close();
    }
  });

  it('with REDIS_URL: the BullMQ driver on every queue of QUEUE_NAMES, under REDIS_PREFIX + "bull"', async () => {
    const prefix = `mgqueuemodule:${randomBytes(6).toString('hex')}:`;
    const app = await boot(
      { REDIS_URL, REDIS_PREFIX: prefix },
      recordingHandlers(() => undefined),
    );
    const redis = new Redis(REDIS_URL);
    try {
      const pipeline = app.get<CheckPipeline>(CHECK_PIPELINE);
      expect(pipeline).toBeInstanceOf(BullMqPipeline);
      const queues = app.get<Queue[]>(QUEUES);
      expect(queues.map((queue) => queue.name).sort()).toEqual([...QUEUE_NAMES].sort());
      expect(new Set(queues.map((queue) => queue.opts.prefix))).toEqual(new Set([`${prefix}bull`]));
      await pipeline.ping();
      await app.get<StageContext>(JOB_CONTEXT).enqueue('list.feed', { listId: 'lst_2' }, { jobId: 'lst_2.feed' });
      expect(await redis.exists(`${prefix}bull:lists:lst_2.feed`)).toBe(1);
    } finally {
      await app.close();
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    }
  });
});
