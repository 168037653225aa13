import { randomBytes } from 'node:crypto';
import type { Job, Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { startStageWorker, type StageWorker } from '../../../../test/support/stage-worker';
import { ClockWatchdog } from './clock-watchdog';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const HOUR = 3_600_000;

/**
 * The wall clock of this process going back an hour, on real Redis and a real BullMQ worker:
 * BullMQ promotes delayed jobs by this clock, so a job due in a second would wait an hour more.
 */
describe('ClockWatchdog', () => {
  const prefix = `mgclock:${randomBytes(6).toString('hex')}:`;
  let queue: Queue;
  let worker: StageWorker;
  let redis: Redis;
  const realNow = Date.now;
  const handlers = {
    'list.feed': async () => ({ dispatched: 1 }),
    'webhook.deliver': async () => ({ delivered: 1, retrying: 0, failed: 0 }),
  };

  beforeEach(async () => {
    worker = await startStageWorker('lists', handlers, prefix);
    queue = worker.queue;
    redis = new Redis(REDIS_URL);
  });

  afterEach(async () => {
    Date.now = realNow;
    await queue.obliterate({ force: true });
    await worker.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it('re-arms delayed jobs stranded by a backward jump to their own delay, and the jobs run', async () => {
    const jumps: Array<[number, number]> = [];
    const watchdog = new ClockWatchdog([queue], redis, { onJump: (jump, rearmed) => jumps.push([jump, rearmed]) });
    const job = await queue.add('list.feed', { listId: 'lst_clock' }, { delay: 1_000 });
    const done = new Promise((resolve) =>
      worker.onCompleted((completed: Job, result) => completed.id === job.id && resolve(result)),
    );
    Date.now = () => realNow() - HOUR;
    await watchdog.check();
    expect(jumps).toHaveLength(1);
    expect(jumps[0][0]).toBeLessThan(-HOUR + 5_000);
    expect(jumps[0][1]).toBe(1);
    expect(await done).toEqual({ dispatched: 1 });
  });

  it('leaves jobs alone when the clock keeps time or jumps ahead', async () => {
    const jumps: number[] = [];
    const watchdog = new ClockWatchdog([queue], redis, { onJump: (jump) => jumps.push(jump) });
    await queue.add('list.feed', { listId: 'lst_later' }, { delay: 60_000 });
    await watchdog.check();
    expect(jumps).toEqual([]);
    Date.now = () => realNow() + HOUR;
    await watchdog.check();
    expect(jumps).toHaveLength(1);
    expect(await queue.getDelayedCount()).toBe(1);
  });

  it('runs its timer only between start and stop', () => {
    const watchdog = new ClockWatchdog([queue], redis);
    watchdog.start();
    watchdog.start();
    watchdog.stop();
    watchdog.stop();
  });
});
