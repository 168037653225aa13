import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { Module, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Metrics } from '@mailguard/metrics';
import {
  JOB_CONTEXT,
  JobHandedBack,
  JobHandlerFor,
  JobHandlersModule,
  type JobHandlers,
  type JobName,
  type StageContext,
  type StageHandler,
} from '@mailguard/queue';
import { Queue } from 'bullmq';
import { flushRedisPrefix, TEST_REDIS_URL } from '../../../../test/support/services';
import { startStageWorker } from '../../../../test/support/stage-worker';
import { stageProcessor, WORKER_QUEUE } from './stage.processor';

@JobHandlerFor('list.feed')
class FeedHandler implements StageHandler<'list.feed'> {
  async handle() {
    return { dispatched: 0 };
  }
}

@JobHandlerFor('webhook.deliver')
class WebhookHandler implements StageHandler<'webhook.deliver'> {
  async handle() {
    return { delivered: 1, retrying: 0, failed: 0 };
  }
}

@JobHandlerFor('dns.inspect')
class InspectHandler implements StageHandler<'dns.inspect'> {
  handle(): never {
    throw new Error('never run');
  }
}

/** Boots the processor of the lists queue on the handlers found among `handlers` (the queues are not reached: the check comes first). */
function boot(handlers: Array<Type<StageHandler<JobName>>>) {
  const jobs: StageContext = { enqueue: async () => undefined, join: async () => undefined };
  @Module({
    imports: [JobHandlersModule.register({ handlers })],
    providers: [
      { provide: WORKER_QUEUE, useValue: 'lists' },
      { provide: JOB_CONTEXT, useValue: jobs },
      { provide: Metrics, useValue: new Metrics('test') },
      stageProcessor('lists', 1),
    ],
  })
  class TestWorkerModule {}
  return NestFactory.createApplicationContext(TestWorkerModule, { logger: false, abortOnError: false });
}

/** The handler table of a worker is checked against its queue's jobs when the process boots. */
describe('the processor of a queue', () => {
  it('refuses to boot when a job of its queue has no handler', async () => {
    await expect(boot([FeedHandler])).rejects.toThrow(/declared list\.feed, webhook\.deliver; given list\.feed$/);
  });

  it('refuses to boot with a handler of another queue', async () => {
    await expect(boot([FeedHandler, WebhookHandler, InspectHandler])).rejects.toThrow(
      /job handlers do not match the declared jobs/,
    );
  });
});

/** 'settled' when `promise` has settled by the next turn of the event loop, else 'pending'. */
function state(promise: Promise<unknown>): Promise<'settled' | 'pending'> {
  return Promise.race([
    promise.then(() => 'settled' as const),
    new Promise<'pending'>((resolve) => setImmediate(() => resolve('pending'))),
  ]);
}

/** A promise and what settles it, for a handler to be held or heard. */
function signal() {
  let fire = () => undefined as void;
  const fired = new Promise<void>((resolve) => (fire = resolve));
  return { fire, fired };
}

describe('the processor at shutdown (real Redis)', () => {
  const prefix = `mgstageshutdown:${randomBytes(6).toString('hex')}:`;

  afterAll(() => flushRedisPrefix(prefix));

  it('takes no more jobs, waits for the job in flight, and hands a feed back unattempted for the next worker', async () => {
    const feedRunning = signal();
    const deliveryRunning = signal();
    const deliveryHeld = signal();
    let feeds = 0;
    const handlers: Partial<JobHandlers> = {
      'list.feed': async (_payload, _jobs, run) => {
        if (++feeds > 1) return { dispatched: 1 };
        feedRunning.fire();
        // The first feed runs until its process stops, then stops at its checkpoint.
        if (!run?.stopping.aborted) await once(run!.stopping, 'abort');
        throw new JobHandedBack('list.feed');
      },
      'webhook.deliver': async () => {
        deliveryRunning.fire();
        await deliveryHeld.fired;
        return { delivered: 1, retrying: 0, failed: 0 };
      },
    };
    const first = await startStageWorker('lists', handlers, prefix, 2);
    let second: Awaited<ReturnType<typeof startStageWorker>> | null = null;
    const opened: Array<() => Promise<void>> = [];
    try {
      await first.jobs.enqueue('list.feed', { listId: 'lst_a' }, { jobId: 'lst_a.feed', transient: true });
      await first.jobs.enqueue('webhook.deliver', { listId: 'lst_a' }, { jobId: 'lst_a.webhook' });
      await Promise.all([feedRunning.fired, deliveryRunning.fired]);
      // Waiting while both slots are busy: a worker that went on taking jobs would take it as the feed leaves.
      await first.jobs.enqueue('webhook.deliver', { listId: 'lst_b' }, { jobId: 'lst_b.webhook' });

      const closing = first.close();
      // The delivery in flight holds the shutdown until it ends.
      expect(await state(closing)).toBe('pending');
      deliveryHeld.fire();
      await closing;

      // The worker's own queue closed with it: the state is read from outside.
      const queue = new Queue('lists', { connection: { url: TEST_REDIS_URL }, prefix: `${prefix}bull` });
      opened.push(() => queue.close());
      expect(await queue.getJobState('lst_a.webhook')).toBe('completed');
      expect(await queue.getJobState('lst_b.webhook')).toBe('waiting');
      const feed = await queue.getJob('lst_a.feed');
      expect([await feed?.getState(), feed?.attemptsMade, feed?.stalledCounter]).toEqual(['waiting', 0, 0]);
      expect(await queue.getJobCountByTypes('failed')).toBe(0);

      // The next worker takes the feed up where it was handed back, and the job left waiting.
      second = await startStageWorker('lists', handlers, prefix, 2);
      const completed = new Set<string>();
      const both = signal();
      second.onCompleted((job) => {
        completed.add(job.id as string);
        if (completed.has('lst_a.feed') && completed.has('lst_b.webhook')) both.fire();
      });
      await both.fired;
      expect(feeds).toBe(2);
    } finally {
      deliveryHeld.fire();
      await first.close();
      await second?.close();
      for (const close of opened) await close();
    }
  });
});
