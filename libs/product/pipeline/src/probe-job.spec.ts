import { loadConfig } from '@mailguard/config';
import { createEngine, type VerificationEngine } from '@mailguard/engine';
import { Metrics } from '@mailguard/metrics';
import { InProcessPipeline, probeJob, type CheckRequest, type JobName, type ScoringPayload } from '@mailguard/queue';
import { startLab, type Lab } from '../../../../test/lab';
import { ProbeHandler, probeHandler } from './stages';

/**
 * The one smtp job through the in-process queue and the lab's real sockets: greylisting comes back
 * as delayed jobs of the job's own key, by the one policy, for a caller and for a single check alike.
 */
let lab: Lab;
const pipelines: InProcessPipeline[] = [];
const failures: Array<{ error: unknown; job: JobName }> = [];

beforeAll(async () => {
  lab = await startLab({
    servers: { 'mx.grey.test': { greylistMs: 300 }, 'mx.stubborn.test': { greylistMs: 3_600_000 } },
    domains: {
      'grey.test': { mx: [{ host: 'mx.grey.test', priority: 10 }], mailboxes: { 'john.doe': 'ok' } },
      'stubborn.test': { mx: [{ host: 'mx.stubborn.test', priority: 10 }], mailboxes: { 'john.doe': 'ok' } },
    },
  });
});
afterEach(() => expect(failures).toEqual([]));
afterAll(async () => {
  await Promise.all(pipelines.map((pipeline) => pipeline.close()));
  await lab.stop();
});

function engineWith(heloName: string, greylistRetrySeconds: string): VerificationEngine {
  return createEngine(
    loadConfig({
      ...lab.env,
      SMTP_HELO_NAME: heloName,
      GREYLIST_RETRY_SECONDS: greylistRetrySeconds,
      CHECK_DEADLINE_MS: '6000',
    }),
  );
}

it('answers a caller once a greylisting server, asked again after GREYLIST_RETRY_SECONDS, says yes', async () => {
  const engine = engineWith('job1.mailguard.test', '1');
  const metrics = new Metrics('test');
  const handler = new ProbeHandler(engine, metrics);
  const pipeline = new InProcessPipeline(
    { 'smtp.probe': handler.handle },
    (error, job) => failures.push({ error, job }),
    ['smtp'],
  );
  pipelines.push(pipeline);
  const deadlineAt = Date.now() + 6_000;
  const outcomes = await pipeline.probe('fnd_job1', {
    inspections: [await engine.inspect('john.doe@grey.test', { deadlineAt })],
    deadlineAt,
  });
  expect(outcomes?.map((outcome) => outcome.probe.replyClass)).toEqual(['accepted']);
  const mails = lab.stats('mx.grey.test').commands.filter((command) => command.startsWith('MAIL'));
  expect(mails).toHaveLength(2);
  // The handler counts each attempt's outcome, in process as on a worker.
  const counted = (await metrics.smtpOutcomes.get()).values;
  expect(counted.map(({ labels, value }) => [labels.class, value]).sort()).toEqual([
    ['accepted', 1],
    ['greylisted', 1],
  ]);
});

it('asks a server that keeps greylisting at most three times more, then settles the check as greylisted', async () => {
  const engine = engineWith('job2.mailguard.test', '0');
  const concluded: ScoringPayload[] = [];
  let settled: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (settled = resolve));
  const handlers = {
    'smtp.probe': probeHandler(engine),
    'scoring.conclude': async (payload: ScoringPayload) => {
      concluded.push(payload);
      settled();
      return engine.conclude(payload.inspection, payload.outcome);
    },
    'scoring.concludeGroup': async () => Promise.reject(new Error('no list in this test')),
  };
  const pipeline = new InProcessPipeline(handlers, (error, job) => failures.push({ error, job }), ['smtp', 'scoring']);
  pipelines.push(pipeline);
  const deadlineAt = Date.now() + 6_000;
  const request: CheckRequest = {
    requestId: 'ver_job2',
    email: 'john.doe@stubborn.test',
    deadlineAt,
    accountId: null,
    kind: null,
  };
  const inspection = await engine.inspect(request.email, { deadlineAt });
  await pipeline.jobs.enqueue(
    'smtp.probe',
    probeJob(request.requestId, [inspection], request, { to: 'check', request }),
    { jobId: 'ver_job2.smtp.probe.0' },
  );
  await done;
  expect(concluded).toHaveLength(1);
  expect(concluded[0].outcome?.probe.failure).toBe('greylisted');
  const mails = lab.stats('mx.stubborn.test').commands.filter((command) => command.startsWith('MAIL'));
  expect(mails).toHaveLength(4);
});
