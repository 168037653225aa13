import { loadConfig } from '@mailguard/config';
import { createEngine, type VerificationEngine } from '@mailguard/engine';
import { probeHandler } from '@mailguard/pipeline';
import { InProcessPipeline } from '@mailguard/queue';
import { startLab, type Lab } from '../../../../test/lab';
import { findAddress, type FinderDeps } from './finder';

/**
 * A server that greylists says "come back later", not "nobody": the finder asks again after
 * GREYLIST_RETRY_SECONDS when that fits in the deadline, as a single check does (the lab's real sockets;
 * the probe goes through the smtp queue, in this process, as in a gateway without Redis).
 */
let lab: Lab;
const pipelines: InProcessPipeline[] = [];
const failures: unknown[] = [];

function finder(engine: VerificationEngine, key: string): FinderDeps {
  const pipeline = new InProcessPipeline({ 'smtp.probe': probeHandler(engine) }, (error) => failures.push(error), [
    'smtp',
  ]);
  pipelines.push(pipeline);
  return { engine, probe: (request) => pipeline.probe(key, request) };
}

beforeAll(async () => {
  lab = await startLab({
    servers: { 'mx.grey.test': { greylistMs: 300 } },
    domains: { 'grey.test': { mx: [{ host: 'mx.grey.test', priority: 10 }], mailboxes: { 'john.doe': 'ok' } } },
  });
});
afterEach(() => expect(failures).toEqual([]));
afterAll(async () => {
  await Promise.all(pipelines.map((pipeline) => pipeline.close()));
  await lab.stop();
});

it('finds a person at a greylisting domain by asking again once the greylisting has passed', async () => {
  const engine = createEngine(
    loadConfig({
      ...lab.env,
      SMTP_HELO_NAME: 'finder.mailguard.test',
      GREYLIST_RETRY_SECONDS: '1',
      CHECK_DEADLINE_MS: '6000',
      // Each round in a session of its own, so that the sessions count the rounds.
      SMTP_SESSION_IDLE_MS: '0',
    }),
  );
  const answer = await findAddress(finder(engine, 'fnd_grey1'), { first: 'john', last: ['doe'] }, 'grey.test');
  expect(answer.email).toBe('john.doe@grey.test');
  expect(lab.stats('mx.grey.test').sessions).toBe(2);
});

it('answers nobody found, without waiting, when the retry would not fit in the deadline', async () => {
  const engine = createEngine(
    loadConfig({
      ...lab.env,
      SMTP_HELO_NAME: 'finder2.mailguard.test',
      GREYLIST_RETRY_SECONDS: '30',
      CHECK_DEADLINE_MS: '6000',
    }),
  );
  const answer = await findAddress(finder(engine, 'fnd_grey2'), { first: 'john', last: ['doe'] }, 'grey.test');
  expect(answer.email).toBeNull();
});
