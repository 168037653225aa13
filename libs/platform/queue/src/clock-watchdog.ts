import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';

export interface ClockWatchdogOptions {
  /** How often the wall clock is compared with the monotonic one. */
  intervalMs?: number;
  /** A disagreement beyond this is a jump, not scheduling noise. */
  toleranceMs?: number;
  /** Hears every jump (ms; negative: the clock went back) and how many jobs were re-armed. */
  onJump?: (jumpMs: number, rearmed: number) => void;
}

/**
 * BullMQ decides when a delayed job is due from the wall clocks of the processes that add and
 * promote it. When this machine's clock goes back by J, every delayed job (greylist retries, webhook
 * retries, list sweeps) would wait J longer — an hour's jump strands them for an hour. The watchdog
 * notices the jump (wall clock against the monotonic clock) and re-arms each delayed job that is now
 * due later than its own delay from now, to that delay: never later than it was asked for.
 */
export class ClockWatchdog {
  private timer: NodeJS.Timeout | null = null;
  private wall = Date.now();
  private monotonic = performance.now();
  private checking: Promise<void> | null = null;

  constructor(
    private readonly queues: Queue[],
    /** Reads the delayed sets' scores (BullMQ's own API lists delayed ids, not when they are due). */
    private readonly redis: Redis,
    private readonly options: ClockWatchdogOptions = {},
  ) {}

  start(): void {
    this.timer ??= setInterval(() => void this.check(), this.options.intervalMs ?? 5_000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Compares the clocks once; re-arms delayed jobs after a backward jump. Resolves when done. */
  check(): Promise<void> {
    this.checking ??= this.compare().finally(() => (this.checking = null));
    return this.checking;
  }

  private async compare(): Promise<void> {
    const wall = Date.now();
    const monotonic = performance.now();
    const jump = wall - this.wall - (monotonic - this.monotonic);
    this.wall = wall;
    this.monotonic = monotonic;
    if (Math.abs(jump) <= (this.options.toleranceMs ?? 2_000)) return;
    // A forward jump only makes jobs run early: nothing is stranded, nothing to do.
    const rearmed = jump < 0 ? await this.rearm() : 0;
    this.options.onJump?.(jump, rearmed);
  }

  private async rearm(): Promise<number> {
    let rearmed = 0;
    for (const queue of this.queues) {
      // Ids and due times straight from the delayed set (score = due ms × 4096 + a counter).
      const entries = await this.redis.zrange(queue.keys.delayed, 0, -1, 'WITHSCORES');
      for (let i = 0; i < entries.length; i += 2) {
        const due = Math.floor(Number(entries[i + 1]) / 0x1000);
        const job = await queue.getJob(entries[i]);
        if (!job || due - Date.now() <= job.delay) continue;
        // The job may have been promoted or removed meanwhile: then there is nothing to re-arm.
        await job.changeDelay(job.delay).then(
          () => rearmed++,
          () => undefined,
        );
      }
    }
    return rearmed;
  }
}
