import { Injectable, Module, type DynamicModule, type ModuleMetadata, type Type } from '@nestjs/common';
import { DiscoveryModule, DiscoveryService } from '@nestjs/core';
import {
  JOB_QUEUES,
  type JobHandlers,
  type JobName,
  type JobPayload,
  type JobResult,
  type JobRun,
  type QueueName,
  type StageContext,
} from './jobs';

/** The handler of one job, a provider: it holds its dependencies from DI. */
export interface StageHandler<N extends JobName> {
  handle(payload: JobPayload<N>, context: StageContext, run?: JobRun): Promise<JobResult<N>>;
}

/** Every job's handler found at boot (`Partial<JobHandlers>`): the in-process driver's and a worker's table. */
export const JOB_HANDLERS = Symbol('JOB_HANDLERS');

/** The mark discovery looks for, with the job's name. */
const HANDLES = DiscoveryService.createDecorator<JobName>();

/**
 * Makes a class the injectable handler of job `name`, found at boot (JobHandlersModule). The class
 * must handle that job's payload and result, checked at compile time against the job map.
 */
export function JobHandlerFor<N extends JobName>(name: N) {
  return (target: Type<StageHandler<N>>): void => {
    HANDLES(name)(target);
    Injectable()(target);
  };
}

/** The job a handler class is marked for (JobHandlerFor). */
export function jobOfHandler(handler: Type<StageHandler<JobName>>): JobName {
  const name = Reflect.getMetadata(HANDLES.KEY, handler) as JobName | undefined;
  if (!name) throw new Error(`${handler.name} is not marked with @JobHandlerFor`);
  return name;
}

/** The handler classes of the jobs of `queue`. */
export function handlersOf(handlers: Array<Type<StageHandler<JobName>>>, queue: QueueName) {
  return handlers.filter((handler) => JOB_QUEUES[jobOfHandler(handler)] === queue);
}

/**
 * The table of the marked providers of the application, by job. Two providers for one job refuse
 * the boot; the driver that runs the table checks it holds every job of its queues.
 */
function discoverHandlers(discovery: DiscoveryService): Partial<JobHandlers> {
  const table: Partial<Record<JobName, StageHandler<JobName>>> = {};
  const owners: Partial<Record<JobName, string>> = {};
  for (const wrapper of discovery.getProviders({ metadataKey: HANDLES.KEY })) {
    const name = discovery.getMetadataByDecorator(HANDLES, wrapper) as JobName;
    if (owners[name]) throw new Error(`two handlers for job ${name}: ${owners[name]} and ${wrapper.name}`);
    owners[name] = String(wrapper.name);
    table[name] = wrapper.instance as StageHandler<JobName>;
  }
  const entries = Object.entries(table).map(([name, handler]) => [
    name,
    (payload: JobPayload<JobName>, context: StageContext, run?: JobRun) => handler.handle(payload, context, run),
  ]);
  // The decorator held each class to its job's payload and result; the map from names is not typed per key.
  return Object.fromEntries(entries) as Partial<JobHandlers>;
}

/**
 * The job handlers of a process (JOB_HANDLERS): `handlers` registered as providers (their
 * dependencies from `imports`), then found at boot by their mark.
 */
@Module({})
export class JobHandlersModule {
  static register(options: {
    handlers: Array<Type<StageHandler<JobName>>>;
    imports?: NonNullable<ModuleMetadata['imports']>;
  }): DynamicModule {
    const { handlers, imports = [] } = options;
    return {
      module: JobHandlersModule,
      imports: [DiscoveryModule, ...imports],
      providers: [
        ...handlers,
        {
          provide: JOB_HANDLERS,
          // The handlers are injected only so that they are built before discovery reads them: Nest
          // builds the providers of different modules concurrently.
          inject: [DiscoveryService, ...handlers],
          useFactory: discoverHandlers,
        },
      ],
      exports: [JOB_HANDLERS],
    };
  }
}
