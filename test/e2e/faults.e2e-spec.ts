import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import type { ListView } from '@mailguard/lists';
import { startLab, type Lab } from '../lab';
import type { Scenario } from '../lab/scenario';
import { apiClient, signupAt, uploadAddresses, type ApiCall } from '../support/api-client';
import { expectSettledAndPaidOnce } from '../support/list-settlement';
import { startPrivatePostgres, startPrivateRedis, type PrivateServer } from '../support/private-servers';
import {
  startGatewayProcess,
  startWorkerProcess,
  WORKER_KINDS,
  type RunningProcess,
  type WorkerKindName,
} from '../support/processes';

/**
 * Faults survived by the distributed service (gateway + four worker kinds as processes), on a
 * Redis and a Postgres of this file's own that it stops and starts: while one is down requests
 * answer 503 { error, code: 'unavailable' }; once it is back everything recovers without a
 * restart, and a list that ran through the outage completes with every row settled and charged
 * once. SIGKILLs of the kinds the pipeline and lists suites do not kill already (dns- and
 * scoring-worker, the gateway) lose nothing and charge nothing twice.
 */
jest.setTimeout(300_000);

/** How long each outage lasts: the "a list running through a one-minute outage". */
const OUTAGE_MS = 60_000;
const DEADLINE_MS = 20_000;
const ADMIN_TOKEN = 'faults-admin-token';
const DOMAINS = 40;
const ROWS_PER_DOMAIN = 10;

function scenario(): Scenario {
  const mailboxes = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`user${i}`, 'ok']));
  const domains: Scenario['domains'] = { 'owners.test': { mx: [{ host: 'mx.owners.test', priority: 10 }] } };
  // A list's groups take a couple of seconds each, two at a time: the list is still running when a server stops.
  for (let d = 0; d < DOMAINS; d++)
    domains[`fault${d}.test`] = { mx: [{ host: 'mx.fault.test', priority: 10 }], mailboxes };
  // Single checks: one domain for the outages and the batch, one the gateway's kill never had answered before.
  for (const domain of ['single.test', 'fresh.test'])
    domains[domain] = { mx: [{ host: 'mx.single.test', priority: 10 }], mailboxes };
  return {
    servers: {
      'mx.fault.test': { latencyMs: 250 },
      'mx.single.test': { latencyMs: 100 },
      'mx.owners.test': { catchAll: true },
    },
    domains,
  };
}

let lab: Lab;
let redis: PrivateServer;
let postgres: PrivateServer;
let gateway: RunningProcess;
const workers = new Map<WorkerKindName, RunningProcess>();
const dirs: string[] = [];
let api: ApiCall;
/** The database the cluster under test writes to (the in-process test has its own). */
let databaseUrl: string;

function workDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mailguard-faults-'));
  dirs.push(dir);
  return dir;
}

function env(): Record<string, string> {
  return {
    ...lab.env,
    DATABASE_URL: postgres.url,
    REDIS_URL: redis.url,
    REDIS_PREFIX: 'mgfaults:',
    SMTP_HELO_NAME: 'faults.mailguard.test',
    SMTP_TIMEOUT_MS: '3000',
    SMTP_MX_CONCURRENCY: '2',
    CHECK_DEADLINE_MS: String(DEADLINE_MS),
    SIGNUP_LIMIT_PER_IP_HOUR: '1000',
    RATE_LIMIT_PER_MINUTE: '100000',
    ADMIN_TOKEN,
  };
}

async function startGateway(): Promise<void> {
  gateway = await startGatewayProcess(env(), workDir());
  api = apiClient(gateway.url);
}

const startWorker = async (kind: WorkerKindName) => workers.set(kind, await startWorkerProcess(kind, env(), workDir()));

async function query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

/** Polls `condition` every 200 ms until it holds, at most `timeoutMs`. */
async function until(what: string, condition: () => Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

beforeAll(async () => {
  [lab, redis, postgres] = await Promise.all([startLab(scenario()), startPrivateRedis(), startPrivatePostgres()]);
  databaseUrl = postgres.url;
  await startGateway();
  await Promise.all(WORKER_KINDS.map(startWorker));
});

afterAll(async () => {
  await Promise.all([gateway, ...workers.values()].map((process) => process?.stop('SIGKILL')));
  await Promise.all([lab?.stop(), redis?.destroy(), postgres?.destroy()]);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const signup = () => signupAt(api, 'owners.test');

/** A list of DOMAINS × ROWS_PER_DOMAIN rows, half of them existing mailboxes, once it is under way. */
async function runningList(apiKey: string): Promise<string> {
  const rows: string[] = [];
  for (let d = 0; d < DOMAINS; d++) for (let i = 0; i < ROWS_PER_DOMAIN; i++) rows.push(`user${i * 10}@fault${d}.test`);
  const id = await uploadAddresses(gateway.url, apiKey, rows);
  await until(
    'the list to start settling rows',
    async () => (await api<ListView>('GET', `/v1/lists/${id}`, { key: apiKey })).body.processed > 0,
  );
  return id;
}

/** The list completes; every row is settled once with a result, and paid for once out of the list's hold. */
async function expectCompletedOnce(apiKey: string, accountId: string, listId: string): Promise<void> {
  const total = DOMAINS * ROWS_PER_DOMAIN;
  await until(
    'the list to complete',
    async () => (await api<ListView>('GET', `/v1/lists/${listId}`, { key: apiKey })).body.status === 'completed',
    150_000,
  );
  const { body } = await api<ListView>('GET', `/v1/lists/${listId}`, { key: apiKey });
  // user0, user10, user20, user30, user40 exist at each domain; user50 … user90 do not.
  expect(body).toMatchObject({
    processed: total,
    counts: { valid: total / 2, risky: 0, invalid: total / 2 },
    creditsHeld: 0,
    creditsCharged: total,
  });
  await expectSettledAndPaidOnce(query, accountId, listId, total);
}

/**
 * Single checks: what each account paid for its checks (charges less refunds) is exactly what its
 * stored checks cost (unknown answers cost nothing), no reference is charged or refunded twice,
 * and every check that answered 200 is stored.
 */
async function expectChargedOnce(accountId: string, answered: number): Promise<void> {
  const [paid] = await query<{ charged: string; refunded: string; refs: string; charges: string }>(
    `SELECT coalesce(-sum(delta) FILTER (WHERE kind = 'charge'), 0) AS charged, coalesce(sum(delta) FILTER (WHERE kind = 'refund'), 0) AS refunded,
            count(DISTINCT ref) FILTER (WHERE kind = 'charge') AS refs, count(*) FILTER (WHERE kind = 'charge') AS charges
     FROM credit_transactions WHERE account_id = $1 AND kind <> 'grant' AND coalesce(ref, '') NOT LIKE 'lst\\_%'`,
    [accountId],
  );
  const [stored] = await query<{ count: string; credits: string }>(
    'SELECT count(*) AS count, coalesce(sum(credits), 0) AS credits FROM verifications WHERE account_id = $1',
    [accountId],
  );
  expect(Number(paid.refs)).toBe(Number(paid.charges));
  expect(Number(paid.charged) - Number(paid.refunded)).toBe(Number(stored.credits));
  expect(Number(stored.count)).toBeGreaterThanOrEqual(answered);
}

/** One single check, bounded: a hang past the deadline fails the test instead of stalling it. */
function check(apiKey: string, email: string) {
  return fetch(`${gateway.url}/v1/email-validation/${email}`, {
    headers: { 'X-API-Key': apiKey },
    signal: AbortSignal.timeout(DEADLINE_MS + 5_000),
  });
}

/**
 * Stops `server` for `outageMs` while a list runs and single checks keep coming, then starts it
 * again and expects the service to recover by itself.
 */
async function survivesOutage(server: () => PrivateServer, { outageMs = OUTAGE_MS, board = true } = {}): Promise<void> {
  const { apiKey, accountId } = await signup();
  const listId = await runningList(apiKey);
  let answered = 0;
  // Checks already under way when the server goes: they answer (or fail cleanly), never 500.
  const inFlight = Array.from({ length: 5 }, (_, i) => check(apiKey, `user${i}@single.test`));
  await server().stop();
  const statuses = (await Promise.all(inFlight)).map((response) => response.status);
  for (const status of statuses) expect([200, 503]).toContain(status);
  answered += statuses.filter((status) => status === 200).length;

  const downUntil = Date.now() + outageMs;
  let asked = 0;
  while (Date.now() < downUntil) {
    const [single, list, ready] = await Promise.all([
      check(apiKey, `user${10 + (asked++ % 40)}@single.test`),
      fetch(`${gateway.url}/v1/lists/${listId}`, {
        headers: { 'X-API-Key': apiKey },
        signal: AbortSignal.timeout(DEADLINE_MS),
      }),
      fetch(`${gateway.url}/health/ready`, { signal: AbortSignal.timeout(DEADLINE_MS) }),
    ]);
    for (const response of [single, list, ready]) {
      expect(response.status).toBe(503);
      expect(await response.json()).toEqual({ error: expect.any(String), code: 'unavailable' });
    }
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
  expect(asked).toBeGreaterThan(2);

  await server().start();
  await until('readiness', async () => (await fetch(`${gateway.url}/health/ready`)).status === 200, 60_000);
  // The same processes serve again: single checks, the queue board, and the list that ran through the outage.
  const after = await check(apiKey, 'user45@single.test');
  expect(after.status).toBe(200);
  expect(await after.json()).toMatchObject({ reason: 'accepted_email' });
  answered++;
  if (board)
    expect(
      (await fetch(`${gateway.url}/admin/queues/api/queues`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } }))
        .status,
    ).toBe(200);
  await expectCompletedOnce(apiKey, accountId, listId);
  await expectChargedOnce(accountId, answered);
  for (const process of [gateway, ...workers.values()]) expect(process.child.exitCode).toBeNull();
}

describe('outages', () => {
  it('Redis down for a minute: 503s meanwhile, then everything recovers and the list completes, charged once', () =>
    survivesOutage(() => redis));

  it('Postgres down for a minute: 503s meanwhile, then everything recovers and the list completes, charged once', () =>
    survivesOutage(() => postgres));
});

describe('one process (in-process queues) on Postgres', () => {
  it('Postgres down for 15 s: 503s meanwhile, then the same process completes the list, charged once', async () => {
    await query('CREATE DATABASE inprocess');
    const url = new URL(postgres.url);
    url.pathname = '/inprocess';
    const { REDIS_URL: _none, ...rest } = env();
    const single = await startGatewayProcess({ ...rest, DATABASE_URL: url.toString() }, workDir());
    const cluster = { gateway, api, databaseUrl };
    try {
      ({ gateway, api, databaseUrl } = { gateway: single, api: apiClient(single.url), databaseUrl: url.toString() });
      await survivesOutage(() => postgres, { outageMs: 15_000, board: false });
    } finally {
      await single.stop('SIGKILL');
      ({ gateway, api, databaseUrl } = cluster);
    }
  });
});

describe('SIGKILL', () => {
  it('of the dns- and scoring-worker during a batch and a list: every check and row answered, each charged once', async () => {
    const { apiKey, accountId } = await signup();
    const listId = await runningList(apiKey);
    const sessions = lab.stats('mx.single.test').sessions;
    const batch = fetch(`${gateway.url}/v1/email-validation/batch`, {
      method: 'POST',
      headers: { 'X-API-Key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ emails: Array.from({ length: 50 }, (_, i) => `user${i}@single.test`) }),
    });
    await until('the batch to be under way', async () => lab.stats('mx.single.test').sessions - sessions >= 4);
    await Promise.all((['dns-worker', 'scoring-worker'] as const).map((kind) => workers.get(kind)?.stop('SIGKILL')));
    await Promise.all([startWorker('dns-worker'), startWorker('scoring-worker')]);
    const response = await batch;
    expect(response.status).toBe(200);
    const { results } = (await response.json()) as { results: Array<{ reason: string }> };
    expect(results.map((result) => result.reason)).toEqual(Array(50).fill('accepted_email'));
    await expectCompletedOnce(apiKey, accountId, listId);
    await expectChargedOnce(accountId, 50);
  });

  it('of the gateway during single checks and a list: the list completes; every check in flight is stored for its charge', async () => {
    const { apiKey, accountId } = await signup();
    const listId = await runningList(apiKey);
    const sessions = lab.stats('mx.single.test').sessions;
    const inFlight = Array.from({ length: 10 }, (_, i) => check(apiKey, `user${i}@fresh.test`).catch(() => null));
    const count = async (sql: string) => Number((await query<{ n: string }>(sql, [accountId]))[0].n);
    const charges = () =>
      // The single checks' charges (the list's rows are charged as they settle, under its ref).
      count(
        "SELECT count(*) AS n FROM credit_transactions WHERE account_id = $1 AND kind = 'charge' AND ref NOT LIKE 'lst\\_%'",
      );
    await until(
      'the checks to be charged and under way',
      async () => (await charges()) === 10 && lab.stats('mx.single.test').sessions - sessions >= 2,
    );
    expect(await gateway.stop('SIGKILL')).toBeNull();
    // The answers still in flight are lost with the connection; their charges are not orphans (below).
    expect((await Promise.all(inFlight)).filter((response) => response === null).length).toBeGreaterThan(0);
    await startGateway();
    // The workers finish the checks and store each answer under its request id.
    await until(
      'every charged check to be stored',
      async () => (await count('SELECT count(*) AS n FROM verifications WHERE account_id = $1')) === 10,
    );
    expect(await charges()).toBe(10);
    await expectChargedOnce(accountId, 0);
    await expectCompletedOnce(apiKey, accountId, listId);
  });
});
