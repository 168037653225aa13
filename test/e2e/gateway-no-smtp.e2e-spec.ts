import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { startLab, type Lab } from '../lab';
import { apiClient } from '../support/api-client';
import { startGatewayProcess, startWorkerProcess, type RunningProcess } from '../support/processes';
import { createTestDatabase, flushRedisPrefix, TEST_REDIS_URL, type TestDatabase } from '../support/services';

/**
 * With REDIS_URL the gateway only authenticates, meters and waits: a check, the finder and domain
 * insight all send their SMTP work to the smtp queue, and no mail server hears from the gateway.
 * With no smtp-worker running, the lab's servers see no connection while the three requests wait;
 * once one starts, all three are answered.
 */
jest.setTimeout(180_000);

const MX = ['mx.check.test', 'mx.find.test', 'mx.insight.test'];

let lab: Lab;
let database: TestDatabase;
const runPrefix = `mgnosmtp:${randomBytes(6).toString('hex')}:`;
const processes: RunningProcess[] = [];
const workDir = () => mkdtempSync(join(tmpdir(), 'mailguard-no-smtp-'));

beforeAll(async () => {
  lab = await startLab({
    servers: { 'mx.owners.test': { catchAll: true }, 'mx.check.test': {}, 'mx.find.test': {}, 'mx.insight.test': {} },
    domains: {
      'owners.test': { mx: [{ host: 'mx.owners.test', priority: 10 }] },
      'check.test': { mx: [{ host: 'mx.check.test', priority: 10 }], mailboxes: { jane: 'ok' } },
      'find.test': { mx: [{ host: 'mx.find.test', priority: 10 }], mailboxes: { 'john.doe': 'ok' } },
      'insight.test': { mx: [{ host: 'mx.insight.test', priority: 10 }], mailboxes: { postmaster: 'ok' } },
    },
  });
  database = await createTestDatabase();
});

afterAll(async () => {
  await Promise.all(processes.map((process) => process.stop('SIGKILL')));
  await database?.drop();
  await lab?.stop();
  await flushRedisPrefix(runPrefix);
});

it('opens no SMTP connection from the gateway for a check, the finder or domain insight', async () => {
  const env = {
    ...lab.env,
    DATABASE_URL: database.url,
    REDIS_URL: TEST_REDIS_URL,
    REDIS_PREFIX: runPrefix,
    SMTP_HELO_NAME: 'no-smtp.mailguard.test',
    SMTP_TIMEOUT_MS: '2000',
    // Long enough to start an smtp-worker while the requests wait.
    CHECK_DEADLINE_MS: '90000',
  };
  const [gateway, ...workers] = await Promise.all([
    startGatewayProcess(env, workDir()),
    startWorkerProcess('dns-worker', env, workDir()),
    startWorkerProcess('scoring-worker', env, workDir()),
    startWorkerProcess('smtp-worker', env, workDir()),
  ]);
  processes.push(gateway, ...workers);
  const api = apiClient(gateway.url);
  // The sign-up check needs a prober; then the only one stops.
  const signup = await api<{ apiKey: string }>('POST', '/v1/accounts', { body: { email: 'owner@owners.test' } });
  expect(signup.status).toBe(201);
  const key = signup.body.apiKey;
  await workers[2].stop('SIGTERM');
  lab.resetStats();

  const answered: string[] = [];
  const track = <T>(name: string, pending: Promise<T>) => pending.finally(() => answered.push(name));
  const requests = Promise.all([
    track('check', api<{ reason: string }>('GET', '/v1/email-validation/jane@check.test', { key })),
    track(
      'finder',
      api<{ email: string | null }>('GET', '/v1/email-finder?firstName=John&lastName=Doe&domain=find.test', { key }),
    ),
    track('insight', api<{ catchAll: boolean | null }>('GET', '/v1/email-finder/domain/insight.test', { key })),
  ]);

  // Until the three probes wait in the smtp queue, or a mail server hears from someone, or an answer comes.
  const smtp = new Queue('smtp', { connection: { url: TEST_REDIS_URL }, prefix: `${runPrefix}bull` });
  let waiting = 0;
  const sessions = () => MX.reduce((sum, host) => sum + lab.stats(host).sessions, 0);
  try {
    while (waiting < 3 && sessions() === 0 && answered.length === 0) {
      waiting = await smtp.getWaitingCount();
      if (waiting < 3) await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    await smtp.close();
  }
  expect(sessions()).toBe(0);
  expect(answered).toEqual([]);
  expect(waiting).toBe(3);

  processes.push(await startWorkerProcess('smtp-worker', env, workDir()));
  const [check, finder, insight] = await requests;
  expect(check.body).toMatchObject({ reason: 'accepted_email' });
  expect(finder.body).toMatchObject({ email: 'john.doe@find.test' });
  expect(insight.body).toMatchObject({ catchAll: false });
  for (const host of MX) expect(lab.stats(host).sessions).toBeGreaterThan(0);
});
