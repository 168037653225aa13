import { randomBytes } from 'node:crypto';
import { Queue, QueueEvents, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { ClockWatchdog } from './clock-watchdog';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const HOUR = 3_600_000;

/**
 * The wall clock of this process going back an hour, on real Redis and a real BullMQ worker:
 * BullMQ promotes delayed jobs by this clock, so a job due in a second would wait an hour more.
 */
describe('ClockWatchdog', () => {
  const prefix = `mgclock:${randomBytes(6).toString('hex')}`;
  const connection = { url: REDIS_URL };
  let queue: Queue;
  let worker: Worker;
  let events: QueueEvents;
  let redis: Redis;
  const realNow = Date.now;

  beforeEach(async () => {
    queue = new Queue('clock', { connection, prefix });
    events = new QueueEvents('clock', { connection, prefix });
    await events.waitUntilReady();
    worker = new Worker('clock', async () => 'done', { connection, prefix });
    redis = new Redis(REDIS_URL);
  });

  afterEach(async () => {
    Date.now = realNow;
    await worker.close();
    await events.close();
    await queue.obliterate({ force: true });
    await queue.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it('re-arms delayed jobs stranded by a backward jump to their own delay, and the jobs run', async () => {
    const jumps: Array<[number, number]> = [];
    const watchdog = new ClockWatchdog([queue], redis, { onJump: (jump, rearmed) => jumps.push([jump, rearmed]) });
    const job = await queue.add('retry', {}, { delay: 1_000 });
    const done = events.waitUntilReady().then(() => job.waitUntilFinished(events, 20_000));
    Date.now = () => realNow() - HOUR;
    await watchdog.check();
    expect(jumps).toHaveLength(1);
    expect(jumps[0][0]).toBeLessThan(-HOUR + 5_000);
    expect(jumps[0][1]).toBe(1);
    expect(await done).toBe('done');
  });

  it('leaves jobs alone when the clock keeps time or jumps ahead', async () => {
    const jumps: number[] = [];
    const watchdog = new ClockWatchdog([queue], redis, { onJump: (jump) => jumps.push(jump) });
    await queue.add('later', {}, { delay: 60_000 });
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
