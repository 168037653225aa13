import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
  type Provider,
} from '@nestjs/common';
import { JOB_CONTEXT, type StageContext } from '@mailguard/queue';
import { startSweeps } from './handlers';
import { ListStore } from './list-store';

const JOBS_LOST = Symbol('JOBS_LOST');

/** The sweeps of the running lists (see startSweeps), from the process's start to its shutdown. */
@Injectable()
export class ListSweeps implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Lists');
  private sweeps: { stop(): void } | null = null;

  constructor(
    private readonly lists: ListStore,
    @Inject(JOB_CONTEXT) private readonly jobs: StageContext,
    @Inject(JOBS_LOST) private readonly jobsLost: boolean,
  ) {}

  onApplicationBootstrap(): void {
    this.sweeps = startSweeps(this.lists, this.jobs, {
      jobsLost: this.jobsLost,
      onError: (err) =>
        this.logger.warn(`could not sweep the running lists; trying again at the next sweep: ${String(err)}`),
    });
  }

  beforeApplicationShutdown(): void {
    this.sweeps?.stop();
  }
}

/**
 * The list sweeps of a process. `jobsLost`: its jobs lived in its memory (in-process driver), so
 * the rows of a list that was running when it stopped are dispatched again at start.
 */
export function listSweeps(options: { jobsLost: boolean }): Provider[] {
  return [{ provide: JOBS_LOST, useValue: options.jobsLost }, ListSweeps];
}
