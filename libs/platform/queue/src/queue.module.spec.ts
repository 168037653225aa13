import { randomBytes } from 'node:crypto';
import { Module, type DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { Inspection } from '@mailguard/engine';
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
  type ScoringPayload,
  type StageContext,
} from './jobs';
import { JOB_CONTEXT, QueueModule, QUEUES } from './queue.module';
import { JOB_HANDLERS } from './stage-handlers';

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

  it('with REDIS_URL: a joined job is added once its last part comes, with every part; the parts wait under a TTL, then go', async () => {
    const prefix = `mgqueuemodule:${randomBytes(6).toString('hex')}:`;
    const app = await boot(
      { REDIS_URL, REDIS_PREFIX: prefix },
      recordingHandlers(() => undefined),
    );
    const redis = new Redis(REDIS_URL);
    try {
      const jobs = app.get<StageContext>(JOB_CONTEXT);
      const request = { requestId: 'ver_1', email: 'a@b.test', deadlineAt: 0, accountId: null, kind: null };
      const parts: Array<keyof ScoringPayload> = ['request', 'inspection', 'outcome'];
      const options = { jobId: 'ver_1.scoring.conclude.0', ttlMs: 60_000 };
      const held = `${prefix}bull:join:${options.jobId}`;
      await jobs.join('scoring.conclude', { request, outcome: null }, parts, options);
      expect(await redis.exists(`${prefix}bull:scoring:${options.jobId}`)).toBe(0);
      expect(await redis.pttl(held)).toBeGreaterThan(0);
      const inspection = { email: 'a@b.test' } as Inspection;
      await jobs.join('scoring.conclude', { inspection }, parts, options);
      const data = await redis.hget(`${prefix}bull:scoring:${options.jobId}`, 'data');
      expect(JSON.parse(data ?? 'null')).toEqual({ request, outcome: null, inspection });
      expect(await redis.exists(held)).toBe(0);
    } finally {
      await app.close();
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    }
  });
});
