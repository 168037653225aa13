import type { Redis } from 'ioredis';
import type { EgressPool } from '@mailguard/smtp';
import { proberReadiness, type DoctorReport, type ProberReadiness } from './report';

/** Where the last self-check is kept: this process, or Redis for the gateway to read the probers'. */
export interface ReportStore {
  get(): Promise<DoctorReport | null>;
  set(report: DoctorReport): Promise<void>;
}

export class MemoryReportStore implements ReportStore {
  private report: DoctorReport | null = null;

  async get(): Promise<DoctorReport | null> {
    return this.report;
  }

  async set(report: DoctorReport): Promise<void> {
    this.report = report;
  }
}

/** The fleet's egresses are configured alike: the newest report of any prober stands for all. */
export class RedisReportStore implements ReportStore {
  private readonly key: string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.key = `${prefix}prober:report`;
  }

  async get(): Promise<DoctorReport | null> {
    const text = await this.redis.get(this.key);
    return text ? (JSON.parse(text) as DoctorReport) : null;
  }

  async set(report: DoctorReport): Promise<void> {
    await this.redis.set(this.key, JSON.stringify(report));
  }
}

export interface MonitorOptions {
  /** One self-check; it gives up when `signal` aborts. */
  check: (signal: AbortSignal) => Promise<DoctorReport>;
  store: ReportStore;
  pool: EgressPool;
  /** Between self-checks after the first; null: the first only. */
  everyMs: number | null;
  onReport?: (report: DoctorReport) => void;
  onError?: (error: unknown) => void;
}

/**
 * The prober's standing: a self-check at start-up and then every PROBER_CHECK_MINUTES (in the
 * processes that probe), and readiness from the last one and the blocks the probes meet. Holds a
 * timer and, while a check runs, its sockets: `stop` lets go of both.
 */
export class ProberMonitor {
  private timer: NodeJS.Timeout | null = null;
  private running: AbortController | null = null;
  private stopped = false;
  /** The last self-check this process ran. */
  report: DoctorReport | null = null;

  constructor(private readonly options: MonitorOptions) {}

  get pool(): EgressPool {
    return this.options.pool;
  }

  /** A self-check runs now or is scheduled (false once stopped). */
  get active(): boolean {
    return this.running !== null || this.timer !== null;
  }

  /** Runs a self-check now, then every `everyMs`. */
  start(): void {
    if (this.stopped || this.active) return;
    void this.runOnce();
  }

  /** One self-check, stored and reported; the next one is scheduled after it. */
  async runOnce(): Promise<DoctorReport | null> {
    const controller = new AbortController();
    this.running = controller;
    try {
      const report = await this.options.check(controller.signal);
      if (controller.signal.aborted) return null;
      this.report = report;
      await this.options.store.set(report);
      this.options.onReport?.(report);
      return report;
    } catch (error) {
      if (!controller.signal.aborted) this.options.onError?.(error);
      return null;
    } finally {
      if (this.running === controller) this.running = null;
      this.schedule();
    }
  }

  private schedule(): void {
    if (this.stopped || this.options.everyMs === null || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.runOnce();
    }, this.options.everyMs);
    // A pending check must not keep a finished process alive.
    this.timer.unref();
  }

  /** Readiness's `prober` section: the newest report (this process's or the fleet's) and the blocks. */
  async readiness(): Promise<ProberReadiness> {
    const stored = await this.options.store.get().catch(() => null);
    return proberReadiness(stored ?? this.report, this.options.pool);
  }

  /** The same from what this process knows now, without asking a store (metrics). */
  readinessNow(): ProberReadiness {
    return proberReadiness(this.report, this.options.pool);
  }

  /** No more self-checks; one in flight gives up and lets go of its sockets. */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.running?.abort();
    this.running = null;
  }
}
