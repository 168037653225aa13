import { Injectable, Module, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ConfigModule, loadConfig } from '@mailguard/config';
import { CHECK_PIPELINE, type CheckPipeline, type JobHandlers, type JobName, type JobPayload } from './jobs';
import { QueueModule } from './queue.module';
import { handlersOf, JOB_HANDLERS, JobHandlerFor, JobHandlersModule, type StageHandler } from './stage-handlers';

/** What the handlers below were given: a dependency of theirs from DI. */
@Injectable()
class Seen {
  readonly jobs: string[] = [];
  private heard: () => void = () => undefined;

  /** Resolves at the next job run. */
  readonly next = () => new Promise<void>((resolve) => (this.heard = resolve));

  ran(job: string): void {
    this.jobs.push(job);
    this.heard();
  }
}

@Module({ providers: [Seen], exports: [Seen] })
class SeenModule {}

/** A handler of each job that says which one ran (all six, so that the in-process driver boots). */
function recorder<N extends JobName>(name: N, result: unknown): Type<StageHandler<N>> {
  @JobHandlerFor(name)
  class Recorder implements StageHandler<N> {
    constructor(readonly seen: Seen) {}

    async handle(payload: JobPayload<N>) {
      this.seen.ran(`${name}:${(payload as { listId?: string }).listId}`);
      return result as never;
    }
  }
  Object.defineProperty(Recorder, 'name', { value: `${name} handler` });
  return Recorder;
}

const FEED = recorder('list.feed', { dispatched: 0 });
const WEBHOOK = recorder('webhook.deliver', { delivered: 1, retrying: 0, failed: 0 });
const OTHERS = [
  recorder('dns.inspect', null),
  recorder('smtp.probe', null),
  recorder('scoring.conclude', null),
  recorder('scoring.concludeGroup', null),
];

/** The in-process driver on the handlers found among `handlers`' providers. */
function boot(handlers: Array<Type<StageHandler<JobName>>>) {
  const config = loadConfig({});
  const found = JobHandlersModule.register({ handlers, imports: [SeenModule] });
  @Module({ imports: [ConfigModule.forRoot(config), QueueModule.forRoot({ config, handlers: [found] })] })
  class TestModule {}
  return NestFactory.createApplicationContext(TestModule, { logger: false, abortOnError: false });
}

describe('the job handlers found at boot', () => {
  it('a module with the handler providers yields the table, each job to its provider', async () => {
    const app = await NestFactory.createApplicationContext(
      JobHandlersModule.register({ handlers: [FEED, WEBHOOK], imports: [SeenModule] }),
      { logger: false },
    );
    try {
      const table = app.get<Partial<JobHandlers>>(JOB_HANDLERS);
      expect(Object.keys(table).sort()).toEqual(['list.feed', 'webhook.deliver']);
      const jobs = { enqueue: async () => undefined, join: async () => undefined };
      expect(await table['list.feed']?.({ listId: 'lst_1' }, jobs)).toEqual({ dispatched: 0 });
      expect(app.get(Seen).jobs).toEqual(['list.feed:lst_1']);
    } finally {
      await app.close();
    }
  });

  it('the in-process driver runs the handlers found', async () => {
    const app = await boot([FEED, WEBHOOK, ...OTHERS]);
    try {
      await app
        .get<CheckPipeline>(CHECK_PIPELINE)
        .jobs.enqueue('list.feed', { listId: 'lst_2' }, { jobId: 'lst_2.feed' });
      const seen = app.get(Seen);
      await new Promise<void>((resolve) => {
        const poll = setInterval(() => seen.jobs.length > 0 && (clearInterval(poll), resolve()), 5);
      });
      expect(seen.jobs).toEqual(['list.feed:lst_2']);
    } finally {
      await app.close();
    }
  });

  it('refuses to boot when a job has no handler', async () => {
    await expect(boot([FEED, ...OTHERS])).rejects.toThrow(
      /declared dns\.inspect, list\.feed, scoring\.conclude, scoring\.concludeGroup, smtp\.probe, webhook\.deliver; given dns\.inspect, list\.feed, scoring\.conclude, scoring\.concludeGroup, smtp\.probe$/,
    );
  });

  it('refuses to boot when two providers handle one job', async () => {
    const second = recorder('list.feed', { dispatched: 0 });
    Object.defineProperty(second, 'name', { value: 'second list.feed handler' });
    await expect(boot([FEED, second, WEBHOOK, ...OTHERS])).rejects.toThrow(
      'two handlers for job list.feed: list.feed handler and second list.feed handler',
    );
  });

  it('a queue takes the handlers of its own jobs', () => {
    expect(handlersOf([FEED, WEBHOOK, ...OTHERS], 'lists')).toEqual([FEED, WEBHOOK]);
    expect(handlersOf([FEED, WEBHOOK, ...OTHERS], 'scoring')).toEqual([OTHERS[2], OTHERS[3]]);
  });
});
