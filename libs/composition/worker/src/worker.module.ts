import { getQueueToken } from '@nestjs/bullmq';
import {
  Inject,
  Injectable,
  Logger,
  Module,
  type BeforeApplicationShutdown,
  type DynamicModule,
  type ModuleMetadata,
  type OnApplicationBootstrap,
  type Provider,
} from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { AppConfig, WorkerName } from '@mailguard/config';
import { CoreModule, MetricsModule, REDIS, RedisModule, ResultCacheModule } from '@mailguard/core';
import type { Logger as PinoLogger } from '@mailguard/logger';
import { STAGE_HANDLERS } from '@mailguard/pipeline';
import { ClockWatchdog, handlersOf, JobHandlersModule, QueueModule, type QueueName } from '@mailguard/queue';
import { stageProcessor, WORKER_QUEUE, type StageProcessor } from './stage.processor';
import { WORKER_LIVENESS, WorkerHealthIndicator, WorkerHttpController, type WorkerLiveness } from './worker-http';

export interface WorkerKind {
  queue: QueueName;
  /** Jobs a process runs at once, unless WORKER_CONCURRENCY says otherwise. */
  concurrency: number;
  /** Modules the handlers of the queue's jobs (STAGE_HANDLERS) need beyond CoreModule, Redis, Metrics and the result cache (EngineModule, StoresModule). */
  imports: NonNullable<ModuleMetadata['imports']>;
  /** More of the worker's own (the list worker's sweeps). */
  providers?: Provider[];
  /**
   * How far V8 lets the heap grow past what survived the last full GC before it collects again, in
   * percent. Unset: V8's own pacing, which on a machine with gigabytes of memory lets the heap grow
   * to about four times its live size — for a worker whose jobs die in the old generation (they live
   * seconds), hundreds of MB of garbage. Not a cap: a process that needs more heap still gets it.
   */
  heapGrowingPercent?: number;
}

/** The BullMQ queue the worker takes its jobs from. */
const QUEUE_OF_WORKER = Symbol('QUEUE_OF_WORKER');

/** BullMQ times delayed jobs by the wall clock: a jump back must not strand retries and sweeps. */
@Injectable()
class WorkerClock implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly watchdog: ClockWatchdog;

  constructor(@Inject(QUEUE_OF_WORKER) queue: Queue, @Inject(REDIS) redis: Redis) {
    const logger = new Logger('Clock');
    this.watchdog = new ClockWatchdog([queue], redis, {
      onJump: (jumpMs, rearmed) =>
        logger.warn(`the wall clock jumped ${jumpMs} ms; ${rearmed} delayed jobs re-armed to their own delays`),
    });
  }

  onApplicationBootstrap(): void {
    this.watchdog.start();
  }

  beforeApplicationShutdown(): void {
    this.watchdog.stop();
  }
}

/**
 * One worker process (the shared composition of libs/composition/core): its connections, the queues, the handlers
 * of its queue's jobs, the processor of its queue (concurrency from the configuration) and
 * `/health/live` + `/metrics` on its port.
 */
@Module({})
export class WorkerModule {
  static forRoot(options: {
    name: WorkerName;
    kind: WorkerKind;
    config: AppConfig;
    logger: PinoLogger;
  }): DynamicModule {
    const { name, kind, config, logger } = options;
    const processor = stageProcessor(kind.queue, config.workers.concurrency ?? kind.concurrency);
    return {
      module: WorkerModule,
      imports: [
        CoreModule.forRoot({ config, logger, process: name }),
        QueueModule.forWorkers(),
        // Its clock watchdog (Redis), its processor and /metrics (Metrics), the handlers (the result cache).
        RedisModule,
        MetricsModule,
        ResultCacheModule,
        TerminusModule.forRoot({ logger: false }),
        JobHandlersModule.register({
          handlers: handlersOf(STAGE_HANDLERS, kind.queue),
          imports: [MetricsModule, ResultCacheModule, ...kind.imports],
        }),
        ...kind.imports,
      ],
      controllers: [WorkerHttpController],
      providers: [
        { provide: WORKER_QUEUE, useValue: kind.queue },
        { provide: QUEUE_OF_WORKER, useExisting: getQueueToken(kind.queue) },
        processor,
        {
          provide: WORKER_LIVENESS,
          inject: [processor],
          useFactory: (stage: StageProcessor): WorkerLiveness => ({ isRunning: () => stage.worker.isRunning() }),
        },
        WorkerHealthIndicator,
        WorkerClock,
        ...(kind.providers ?? []),
      ],
    };
  }
}
