import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Metrics } from '@mailguard/metrics';
import { JOB_CONTEXT, type JobHandlers, type StageContext } from '@mailguard/queue';
import { QUEUE_HANDLERS, stageProcessor, WORKER_QUEUE } from './stage.processor';

/** Boots the processor of the lists queue with `handlers` (the queues are not reached: the check comes first). */
function boot(handlers: Partial<JobHandlers>) {
  const jobs: StageContext = { enqueue: async () => undefined, join: async () => undefined };
  @Module({
    providers: [
      { provide: WORKER_QUEUE, useValue: 'lists' },
      { provide: QUEUE_HANDLERS, useValue: handlers },
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
  const feed: Partial<JobHandlers> = { 'list.feed': async () => ({ dispatched: 0 }) };

  it('refuses to boot when a job of its queue has no handler', async () => {
    await expect(boot(feed)).rejects.toThrow(/declared list\.feed, webhook\.deliver; given list\.feed$/);
  });

  it('refuses to boot with a handler of another queue', async () => {
    const inspect: Partial<JobHandlers> = { 'dns.inspect': async () => Promise.reject(new Error('never run')) };
    const handlers = { ...feed, 'webhook.deliver': async () => ({ delivered: 1, retrying: 0, failed: 0 }), ...inspect };
    await expect(boot(handlers)).rejects.toThrow(/job handlers do not match the declared jobs/);
  });
});
