import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLab, type Lab } from '../lab';
import type { Scenario } from '../lab/scenario';
import { apiClient, type ApiCall } from '../support/api-client';
import {
  startGatewayProcess,
  startWorkerProcess,
  type RunningProcess,
  type WorkerKindName,
} from '../support/processes';
import { createTestDatabase, flushRedisPrefix, TEST_REDIS_URL, type TestDatabase } from '../support/services';

/**
 * The distributed pipeline under stress: three smtp-worker processes keep to the per-MX cap
 * together, and a SIGKILLed smtp-worker loses no check and makes none be charged twice.
 */
jest.setTimeout(180_000);

const MAILBOXES = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`user${i}`, 'ok']));

function scenario(): Scenario {
  return {
    servers: {
      'mx.capped.test': { maxConnections: 2, latencyMs: 20 },
      'mx1.pipe.test': { latencyMs: 150 },
      'mx2.pipe.test': { latencyMs: 150 },
      'mx.owners.test': { catchAll: true },
      'mx.grey.test': { greylistMs: 500 },
    },
    domains: {
      'capped.test': { mx: [{ host: 'mx.capped.test', priority: 10 }], mailboxes: MAILBOXES },
      'pipe-a.test': { mx: [{ host: 'mx1.pipe.test', priority: 10 }], mailboxes: MAILBOXES },
      'pipe-b.test': { mx: [{ host: 'mx2.pipe.test', priority: 10 }], mailboxes: MAILBOXES },
      'owners.test': { mx: [{ host: 'mx.owners.test', priority: 10 }] },
      'grey.test': { mx: [{ host: 'mx.grey.test', priority: 10 }], mailboxes: MAILBOXES },
    },
  };
}

let lab: Lab;
let database: TestDatabase;
const runPrefix = `mgpipe:${randomBytes(6).toString('hex')}:`;
const processes: RunningProcess[] = [];
const workDir = () => mkdtempSync(join(tmpdir(), 'mailguard-pipeline-'));

async function cluster(
  extra: Record<string, string>,
  smtpWorkers: number,
): Promise<{ api: ApiCall; smtp: RunningProcess[]; env: Record<string, string> }> {
  const env = {
    ...lab.env,
    DATABASE_URL: database.url,
    REDIS_URL: TEST_REDIS_URL,
    REDIS_PREFIX: `${runPrefix}${randomBytes(4).toString('hex')}:`,
    SMTP_HELO_NAME: 'pipeline.mailguard.test',
    SMTP_TIMEOUT_MS: '2000',
    CHECK_DEADLINE_MS: '90000',
    SIGNUP_LIMIT_PER_IP_HOUR: '1000',
    ...extra,
  };
  const gateway = await startGatewayProcess(env, workDir());
  const kinds: WorkerKindName[] = [
    'dns-worker',
    'scoring-worker',
    ...Array<WorkerKindName>(smtpWorkers).fill('smtp-worker'),
  ];
  const workers = await Promise.all(kinds.map((kind) => startWorkerProcess(kind, env, workDir())));
  processes.push(gateway, ...workers);
  return { api: apiClient(gateway.url), smtp: workers.slice(2), env };
}

async function signup(api: ApiCall): Promise<{ apiKey: string; accountId: string }> {
  const response = await api<{ apiKey: string; account: { id: string } }>('POST', '/v1/accounts', {
    body: { email: `owner.${randomBytes(4).toString('hex')}@owners.test` },
  });
  expect(response.status).toBe(201);
  return { apiKey: response.body.apiKey, accountId: response.body.account.id };
}

beforeAll(async () => {
  lab = await startLab(scenario());
  database = await createTestDatabase();
});

afterAll(async () => {
  await Promise.all(processes.map((process) => process.stop('SIGKILL')));
  await database?.drop();
  await lab?.stop();
  await flushRedisPrefix(runPrefix);
});

describe('the prober fleet', () => {
  it('keeps to SMTP_MX_CONCURRENCY sessions per MX across three smtp-worker processes', async () => {
    const { api } = await cluster({ SMTP_MX_CONCURRENCY: '2' }, 3);
    const { apiKey } = await signup(api);
    lab.resetStats();
    const emails = Array.from({ length: 60 }, (_, i) => `user${i}@capped.test`);
    const response = await api<{ results: Array<{ reason: string }> }>('POST', '/v1/email-validation/batch', {
      key: apiKey,
      body: { emails },
    });
    expect(response.status).toBe(200);
    expect(response.body.results.map((result) => result.reason)).toEqual(Array(60).fill('accepted_email'));
    const stats = lab.stats('mx.capped.test');
    expect(stats.peakConcurrent).toBeLessThanOrEqual(2);
    expect(stats.refused).toBe(0);
    // Every address was asked there, in sessions of their own or in ones kept open between probes.
    const asked = new Set(stats.commands.filter((command) => command.startsWith('RCPT TO:<user')));
    expect(asked.size).toBe(60);
  });
});

describe('greylisting', () => {
  it('retries a greylisted address as a delayed job, not a sleeping worker, and then accepts it', async () => {
    const { api } = await cluster({ GREYLIST_RETRY_SECONDS: '1' }, 1);
    const { apiKey } = await signup(api);
    lab.resetStats();
    const response = await api('GET', '/v1/email-validation/user1@grey.test', { key: apiKey });
    expect(response.body).toMatchObject({ reason: 'accepted_email' });
    // Asked twice: the retry may use the session the first ask left open.
    const asked = lab.stats('mx.grey.test').commands.filter((command) => command === 'RCPT TO:<user1@grey.test>');
    expect(asked).toHaveLength(2);
  });
});

describe('crash safety', () => {
  it('completes every check and charges each once when an smtp-worker is SIGKILLed mid-job', async () => {
    const { api, smtp } = await cluster({ SMTP_MX_CONCURRENCY: '10' }, 2);
    const { apiKey, accountId } = await signup(api);
    const second = await api<{ key: string }>('POST', '/v1/keys', {
      key: apiKey,
      body: { name: 'second', scope: 'verify' },
    });
    lab.resetStats();
    const batch = (domain: string, key: string) =>
      api<{ results: Array<{ reason: string; reachable: string }> }>('POST', '/v1/email-validation/batch', {
        key,
        body: { emails: Array.from({ length: 100 }, (_, i) => `user${i}@${domain}`) },
      });
    const pending = Promise.all([batch('pipe-a.test', apiKey), batch('pipe-b.test', second.body.key)]);
    // Kill one prober once sessions are under way.
    await new Promise<void>((resolve) => {
      const check = () =>
        lab.stats('mx1.pipe.test').sessions + lab.stats('mx2.pipe.test').sessions >= 10
          ? resolve()
          : setTimeout(check, 20);
      check();
    });
    expect(await smtp[0].stop('SIGKILL')).toBeNull();
    const responses = await pending;
    for (const response of responses) {
      expect(response.status).toBe(200);
      expect(response.body.results.map((result) => result.reason)).toEqual(Array(100).fill('accepted_email'));
    }
    const rows = await database.query<{ kind: string; delta: number }>(
      "SELECT kind, delta FROM credit_transactions WHERE account_id = $1 AND kind <> 'grant'",
      [accountId],
    );
    expect(rows).toEqual([
      { kind: 'charge', delta: -100 },
      { kind: 'charge', delta: -100 },
    ]);
    const [stored] = await database.query<{ count: string; charged: string }>(
      'SELECT count(*) AS count, sum(credits) AS charged FROM verifications WHERE account_id = $1',
      [accountId],
    );
    expect({ count: Number(stored.count), charged: Number(stored.charged) }).toEqual({ count: 200, charged: 200 });
  });

  it('lets jobs in flight finish when an smtp-worker is stopped with SIGTERM', async () => {
    const { api, smtp } = await cluster({ SMTP_MX_CONCURRENCY: '10' }, 2);
    const { apiKey } = await signup(api);
    lab.resetStats();
    const pending = api<{ results: Array<{ reason: string }> }>('POST', '/v1/email-validation/batch', {
      key: apiKey,
      body: { emails: Array.from({ length: 100 }, (_, i) => `user${i}@pipe-a.test`) },
    });
    await new Promise<void>((resolve) => {
      const check = () => (lab.stats('mx1.pipe.test').sessions >= 10 ? resolve() : setTimeout(check, 20));
      check();
    });
    expect(await smtp[0].stop('SIGTERM')).toBe(0);
    const response = await pending;
    expect(response.body.results.map((result) => result.reason)).toEqual(Array(100).fill('accepted_email'));
  });
});
