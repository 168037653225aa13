import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { JobHandlers } from '@mailguard/queue';
import { startStageWorker } from '../../../../test/support/stage-worker';
import { feedList } from './handlers';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `mgsweep:${randomBytes(6).toString('hex')}:`;

jest.setTimeout(30_000);

afterAll(async () => {
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

/** Runs `schedule` with the wall clock reading `time` (what a job id or due time is computed from). */
function at<T>(time: number, schedule: () => T): T {
  const clock = jest.spyOn(Date, 'now').mockReturnValue(time);
  try {
    return schedule();
  } finally {
    clock.mockRestore();
  }
}

/**
 * The clock going back (issue 14) must not cost a running list its feed, the visit that redoes
 * rows whose jobs were lost. BullMQ ignores a job whose id it still holds (completed jobs are kept
 * an hour), so a feed is never named after the clock, and its id is kept only while it waits or
 * runs: the next feed of the list, whatever the clock says, runs.
 */
it('a feed sent after the clock went back runs, though an earlier feed of the list had the same id', async () => {
  const handlers: Partial<JobHandlers> = {
    'list.feed': async () => ({ dispatched: 0 }),
    'webhook.deliver': async () => ({ delivered: 1, retrying: 0, failed: 0 }),
  };
  const worker = await startStageWorker('lists', handlers, prefix);
  const producer = worker.jobs;
  let finished = 0;
  let wake = () => undefined as void;
  worker.onCompleted(() => {
    finished++;
    wake();
  });
  /** True once `count` sweeps have run, false when they have not within a generous bound. */
  const swept = (count: number) =>
    new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 10_000);
      wake = () => {
        if (finished < count) return;
        clearTimeout(timer);
        resolve(true);
      };
      wake();
    });
  try {
    const now = Date.now();
    await at(now, () => feedList('lst_clock', producer));
    expect(await swept(1)).toBe(true);
    // The clock steps back an hour before the next feed of the same list.
    await at(now - 3_600_000, () => feedList('lst_clock', producer));
    expect(await swept(2)).toBe(true);
  } finally {
    await worker.close();
  }
});
