import { Module, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Metrics } from '@mailguard/metrics';
import {
  JOB_CONTEXT,
  JobHandlerFor,
  JobHandlersModule,
  type JobName,
  type StageContext,
  type StageHandler,
} from '@mailguard/queue';
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
