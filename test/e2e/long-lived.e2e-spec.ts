import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { startLab, type Lab } from '../lab';
import type { Scenario } from '../lab/scenario';
import { apiClient, type ApiCall } from '../support/api-client';
import { startGatewayProcess, startWorkerProcess, WORKER_KINDS, type RunningProcess } from '../support/processes';
import { createTestDatabase, flushRedisPrefix, TEST_REDIS_URL, type TestDatabase } from '../support/services';

/**
 * What a new user hit on a long-lived process (issue 14): at hosts that offer STARTTLS, as the big
 * providers do, more checks than SMTP_MX_CONCURRENCY in a row all answer definitely — on the CLI,
 * in one process and over BullMQ — and afterwards no process holds a slot. The deadline is short
 * so that a check stuck behind a leaked slot answers `unknown` instead of waiting.
 */
jest.setTimeout(180_000);

const MAILBOXES = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`user${i}`, 'ok']));

function scenario(): Scenario {
  return {
    servers: {
      'mx.tls.test': { tls: 'offered' },
      'mx.tlsreq.test': { tls: 'required', latencyMs: 5 },
      'mx.picky.test': { tls: 'offered', maxRecipients: 1 },
    },
    domains: {
      'tls.test': { mx: [{ host: 'mx.tls.test', priority: 10 }], mailboxes: MAILBOXES },
      'tlsreq.test': { mx: [{ host: 'mx.tlsreq.test', priority: 10 }], mailboxes: MAILBOXES },
      'picky.test': { mx: [{ host: 'mx.picky.test', priority: 10 }], mailboxes: MAILBOXES },
      'catchall.test': { mx: [{ host: 'mx.tls.test', priority: 10 }], catchAll: true },
    },
  };
}

const EXTRA = {
  SMTP_HELO_NAME: 'long.mailguard.test',
  SMTP_TIMEOUT_MS: '3000',
  CHECK_DEADLINE_MS: '5000',
  SMTP_MX_CONCURRENCY: '2',
  SIGNUP_LIMIT_PER_IP_HOUR: '1000',
  // Sessions kept open between checks go within the test's patience once the traffic is over.
  SMTP_SESSION_IDLE_MS: '300',
};
/** How long after the traffic every slot must be back: the kept sessions' idle time and then some. */
const IDLE_WITHIN_MS = 10_000;
const run = promisify(execFile);
const BIN = resolve(__dirname, '../../bin/mailguard.js');
let lab: Lab;

beforeAll(async () => {
  lab = await startLab(scenario());
});
afterAll(() => lab.stop());

it('the CLI at concurrency 1: twelve mailboxes at a STARTTLS host, all valid', async () => {
  const emails = Object.keys(MAILBOXES).map((local) => `${local}@tls.test`);
  // A session per check (none kept open): each gives its slot back before the next can have one of the two.
  const { stdout } = await run(process.execPath, [BIN, 'verify', ...emails, '--json', '--concurrency', '1'], {
    env: { PATH: process.env.PATH ?? '', ...lab.env, ...EXTRA, SMTP_SESSION_IDLE_MS: '0' },
  });
  const results = JSON.parse(stdout) as Array<{ status: string; reachable: string }>;
  expect(results.map((result) => result.status)).toEqual(emails.map(() => 'valid'));
  expect(lab.stats('mx.tls.test').tlsSessions).toBeGreaterThanOrEqual(12);
});

/** The sum of a gauge over its label sets, from a Prometheus text page. */
function gaugeSum(text: string, name: string): number {
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

describe.each(['in-process', 'bullmq'] as const)('a long-lived service (%s)', (driver) => {
  const prefix = `mglong:${randomBytes(6).toString('hex')}:`;
  let database: TestDatabase;
  let gateway: RunningProcess;
  let workers: RunningProcess[] = [];
  let api: ApiCall;
  let key: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    const env = {
      ...lab.env,
      ...EXTRA,
      DATABASE_URL: database.url,
      ...(driver === 'bullmq' ? { REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: prefix } : {}),
    };
    const dir = () => mkdtempSync(join(tmpdir(), 'mailguard-long-'));
    gateway = await startGatewayProcess(env, dir());
    if (driver === 'bullmq')
      workers = await Promise.all(WORKER_KINDS.map((kind) => startWorkerProcess(kind, env, dir())));
    api = apiClient(gateway.url);
    const signup = await api<{ apiKey: string }>('POST', '/v1/accounts', {
      body: { email: `founder.${driver}@catchall.test` },
    });
    expect(signup.status).toBe(201);
    key = signup.body.apiKey;
  });

  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.stop()));
    await gateway?.stop();
    await database?.drop();
    if (driver === 'bullmq') await flushRedisPrefix(prefix);
  });

  /** The processes that hold MX slots: the gateway in one process, the smtp-worker over BullMQ. */
  const probers = () =>
    driver === 'bullmq' ? workers.filter((_, index) => WORKER_KINDS[index] === 'smtp-worker') : [gateway];

  async function slotsHeld(): Promise<number> {
    const pages = await Promise.all(probers().map(async (process) => (await fetch(process.metrics)).text()));
    return pages.reduce((sum, page) => sum + gaugeSum(page, 'mailguard_mx_slots_held'), 0);
  }

  async function reachable(email: string): Promise<string> {
    const response = await api<{ reachable: string }>('GET', `/v1/email-validation/${encodeURIComponent(email)}`, {
      key,
    });
    expect(response.status).toBe(200);
    return response.body.reachable;
  }

  it('answers every check at STARTTLS hosts definitely, one after another, well past the per-MX cap', async () => {
    for (const domain of ['tls.test', 'tlsreq.test', 'picky.test']) {
      const answers: string[] = [];
      for (const local of Object.keys(MAILBOXES).slice(0, 6)) answers.push(await reachable(`${local}@${domain}`));
      expect({ domain, answers }).toEqual({ domain, answers: Array(6).fill('safe') });
    }
  });

  it('keeps answering at a domain after a finder request that found nobody there', async () => {
    const miss = await api<{ email: string | null }>(
      'GET',
      '/v1/email-finder?firstName=Zebulon&lastName=Quartermain&domain=tlsreq.test',
      { key },
    );
    expect(miss.status).toBe(200);
    expect(miss.body.email).toBeNull();
    for (const local of Object.keys(MAILBOXES).slice(6)) expect(await reachable(`${local}@tlsreq.test`)).toBe('safe');
  });

  it('holds no slot once idle, and says so on /metrics', async () => {
    // Slots come back as connections close, the kept ones after their idle time: the page is read until it shows 0.
    const patience = Date.now() + IDLE_WITHIN_MS;
    let held = await slotsHeld();
    while (held > 0 && Date.now() < patience) held = await slotsHeld();
    expect(held).toBe(0);
    const page = await (await fetch(probers()[0].metrics)).text();
    expect(page).toContain('mailguard_mx_slot_wait_seconds_count');
    expect(page).not.toMatch(/^mailguard_mx_lease_expired_total\{/m);
    // Checks one after another at a host began on the session the one before kept; none is kept now.
    expect(gaugeSum(page, 'mailguard_smtp_sessions_reused_total')).toBeGreaterThan(0);
    expect(gaugeSum(page, 'mailguard_smtp_sessions_kept')).toBe(0);
  });
});
