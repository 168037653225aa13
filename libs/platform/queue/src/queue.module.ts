import { BullModule, getQueueToken } from '@nestjs/bullmq';
import {
  Inject,
  Injectable,
  Logger,
  Module,
  type DynamicModule,
  type ModuleMetadata,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { QueueEvents, type Queue } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '@mailguard/config';
import { AWAITED_QUEUES, BullMqPipeline, bullOptions, JobProducer, settleWithin } from './bullmq';
import { InProcessPipeline } from './in-process';
import { CHECK_PIPELINE, QUEUE_NAMES, type CheckPipeline, type JobHandlers } from './jobs';
import { JOB_HANDLERS } from './stage-handlers';

/** The BullMQ queues of the process, for the queue board, the metrics and the clock watchdog; empty in-process. */
export const QUEUES = Symbol('QUEUES');
/** Where jobs start (a `StageContext`): the queues, or this process in-process. */
export const JOB_CONTEXT = Symbol('JOB_CONTEXT');

type Imports = NonNullable<ModuleMetadata['imports']>;

export interface QueueModuleOptions {
  /** The validated configuration: with REDIS_URL the jobs go through BullMQ, else they run in this process. */
  config: AppConfig;
  /** Modules exporting JOB_HANDLERS (JobHandlersModule), imported only by the in-process driver (the workers have their own). */
  handlers: Imports;
}

const QUEUE_TOKENS = QUEUE_NAMES.map((name) => getQueueToken(name));

/** The queues of `QUEUE_NAMES` on the connection and key prefix of the configuration. */
function bullQueues(): Imports {
  return [
    BullModule.forRootAsync({ inject: [APP_CONFIG], useFactory: (config: AppConfig) => bullOptions(config) }),
    BullModule.registerQueue(...QUEUE_NAMES.map((name) => ({ name }))),
  ];
}

const producerProviders = [
  { provide: JobProducer, inject: QUEUE_TOKENS, useFactory: (...queues: Queue[]) => new JobProducer(queues) },
  { provide: QUEUES, inject: [JobProducer], useFactory: (producer: JobProducer) => producer.all() },
  { provide: JOB_CONTEXT, useExisting: JobProducer },
];

/** Closes the driver once the application stops (the BullMQ queues are closed by their own module). */
@Injectable()
class PipelineShutdown implements OnApplicationShutdown {
  constructor(@Inject(CHECK_PIPELINE) private readonly pipeline: CheckPipeline) {}

  onApplicationShutdown(): Promise<void> {
    return this.pipeline.close();
  }
}

/**
 * The job transport of a process. `forRoot` gives the gateway its `CheckPipeline` (CHECK_PIPELINE):
 * over BullMQ with REDIS_URL, else the in-process driver, so that `npm start` needs nothing installed.
 * `forWorkers` gives a worker process the queues it takes jobs from and adds them to.
 */
@Module({})
export class QueueModule {
  static forRoot({ config, handlers }: QueueModuleOptions): DynamicModule {
    if (!config.redis.url) {
      const logger = new Logger('Jobs');
      const pipeline = {
        provide: CHECK_PIPELINE,
        inject: [JOB_HANDLERS],
        useFactory: (table: Partial<JobHandlers>) =>
          new InProcessPipeline(table, (error, job) =>
            logger.error(`job ${job} failed: ${error instanceof Error ? error.message : String(error)}`),
          ),
      };
      const context = { provide: JOB_CONTEXT, inject: [CHECK_PIPELINE], useFactory: (p: CheckPipeline) => p.jobs };
      const providers = [pipeline, context, { provide: QUEUES, useValue: [] }, PipelineShutdown];
      return { module: QueueModule, imports: handlers, providers, exports: [CHECK_PIPELINE, JOB_CONTEXT, QUEUES] };
    }
    const pipeline = {
      provide: CHECK_PIPELINE,
      inject: [JobProducer, APP_CONFIG],
      useFactory: async (producer: JobProducer, settings: AppConfig) => {
        // Distributed: the workers do the checks; this process adds the first job and waits for the last.
        const events = AWAITED_QUEUES.map((queue) => new QueueEvents(queue, bullOptions(settings)));
        const bull = new BullMqPipeline(producer, events);
        // Redis may be down at start: readiness says so, and the listener attaches when it comes back.
        const ready = await settleWithin(bull.start().then(() => true));
        if (ready !== true) new Logger('Jobs').warn('queue events not ready yet');
        return bull;
      },
    };
    return {
      module: QueueModule,
      imports: bullQueues(),
      providers: [...producerProviders, pipeline, PipelineShutdown],
      exports: [CHECK_PIPELINE, JOB_CONTEXT, QUEUES, JobProducer, BullModule],
    };
  }

  /** Workers exist only with Redis: every queue (a stage adds the next stage's jobs) and where jobs start. */
  static forWorkers(): DynamicModule {
    return {
      module: QueueModule,
      imports: bullQueues(),
      providers: producerProviders,
      exports: [JOB_CONTEXT, QUEUES, JobProducer, BullModule],
    };
  }
}
