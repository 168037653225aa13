import { InProcessPipeline } from './in-process';
import type { Inspection } from '@mailguard/engine';
import { JOB_QUEUES, type JobHandlers, type JobName, type ScoringPayload, type SmtpPayload } from './jobs';

/**
 * The machine's clock jumping (issue 14): NTP stepping it, a VM resumed. Jest's fake timers model
 * Node's: timers keep their own monotonic time while `setSystemTime` moves what Date says, so a
 * delay measured with Date instead of a timer would show here as a job run early or stranded.
 */
const HOUR = 3_600_000;
const GREYLIST_RETRY_MS = 300_000;
const RETRY_BACKOFF_MS = 60_000;

function pipelineWith(overrides: Partial<JobHandlers>): { pipeline: InProcessPipeline; runs: JobName[] } {
  const runs: JobName[] = [];
  const handlers = Object.fromEntries(
    (Object.keys(JOB_QUEUES) as JobName[]).map((name) => [
      name,
      async (payload: never, context: never) => {
        runs.push(name);
        return (
          (overrides[name] as ((payload: never, context: never) => Promise<unknown>) | undefined)?.(payload, context) ??
          {}
        );
      },
    ]),
  ) as unknown as JobHandlers;
  return { pipeline: new InProcessPipeline(handlers, () => undefined), runs };
}

const group = {
  key: 'lst_1.r1.1',
  deadlineAt: null,
  inspections: [],
  attempt: 1,
  outcomes: [],
  then: { to: 'list', listId: 'lst_1', round: 'r1', rows: [1] },
} as unknown as SmtpPayload;

beforeEach(() => jest.useFakeTimers({ now: new Date('2026-03-29T00:59:00Z') }));
afterEach(() => jest.useRealTimers());

describe.each([
  ['back', -HOUR],
  ['forward', HOUR],
])('the wall clock jumping an hour %s', (_direction, jump) => {
  it('neither strands nor hastens a greylisting retry: it runs once its delay has passed', async () => {
    const { pipeline, runs } = pipelineWith({});
    await pipeline.jobs.enqueue('smtp.probe', group, { jobId: 'lst_1.r1.1.smtp.probe.1', delayMs: GREYLIST_RETRY_MS });
    jest.setSystemTime(Date.now() + jump);
    await jest.advanceTimersByTimeAsync(GREYLIST_RETRY_MS - 1);
    expect(runs).toEqual([]);
    await jest.advanceTimersByTimeAsync(1);
    expect(runs).toEqual(['smtp.probe']);
    await pipeline.close();
  });

  it("neither strands nor hastens a failed job's retry: the next attempt comes after its backoff", async () => {
    let attempts = 0;
    const { pipeline, runs } = pipelineWith({
      'list.feed': async () => {
        if (++attempts === 1) throw new Error('Postgres is down');
        return { dispatched: 1 };
      },
    });
    await pipeline.jobs.enqueue(
      'list.feed',
      { listId: 'lst_1' },
      {
        jobId: 'lst_1.feed',
        retry: { attempts: 10, backoffMs: RETRY_BACKOFF_MS },
      },
    );
    await jest.advanceTimersByTimeAsync(0);
    expect(attempts).toBe(1);
    jest.setSystemTime(Date.now() + jump);
    await jest.advanceTimersByTimeAsync(RETRY_BACKOFF_MS - 1);
    expect(attempts).toBe(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(attempts).toBe(2);
    expect(runs).toEqual(['list.feed', 'list.feed']);
    await pipeline.close();
  });
});

describe('a job joined from the parts of two stages', () => {
  const request = { requestId: 'ver_1', email: 'a@b.test', deadlineAt: 0, accountId: null, kind: null };
  const parts: Array<keyof ScoringPayload> = ['request', 'inspection', 'outcome'];
  const options = { jobId: 'ver_1.scoring.conclude.0', ttlMs: 60_000 };

  it('runs once, with every part, when the last part comes, and lets its parts go', async () => {
    const concluded: ScoringPayload[] = [];
    const { pipeline } = pipelineWith({
      'scoring.conclude': async (payload) => (concluded.push(payload), {}) as never,
    });
    await pipeline.jobs.join('scoring.conclude', { request, outcome: null }, parts, options);
    await jest.advanceTimersByTimeAsync(0);
    expect(concluded).toEqual([]);
    expect(pipeline.joining).toBe(1);
    const inspection = { email: 'a@b.test' } as Inspection;
    await pipeline.jobs.join('scoring.conclude', { inspection }, parts, options);
    await jest.advanceTimersByTimeAsync(0);
    expect(concluded).toEqual([{ request, outcome: null, inspection }]);
    expect(pipeline.joining).toBe(0);
    await pipeline.close();
  });

  it('lets a part go when the other never comes within its time', async () => {
    const { pipeline, runs } = pipelineWith({});
    await pipeline.jobs.join('scoring.conclude', { request, outcome: null }, parts, options);
    await jest.advanceTimersByTimeAsync(options.ttlMs);
    expect(pipeline.joining).toBe(0);
    expect(runs).toEqual([]);
    await pipeline.close();
  });
});
