import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { SWEPT_REASON } from '@mailguard/pipeline';
import { startLab, type Lab } from '../lab';
import type { Scenario } from '../lab/scenario';
import { apiClient, signupAt, type ApiCall } from '../support/api-client';
import { E2E_CLUSTER_ENV } from '../support/cluster-env';
import {
  startGatewayProcess,
  startWorkerProcess,
  waitForLines,
  WORKER_KINDS,
  type RunningProcess,
} from '../support/processes';
import { createTestDatabase, flushRedisPrefix, TEST_REDIS_URL, type TestDatabase } from '../support/services';
import { startStallingProxy, type StallingProxy } from '../support/stalling-proxy';
import type { Driver } from './api-suite';

const DEADLINE_MS = 10_000;
const MARGIN_MS = 1_000;
const BATCH = ['ann@silent.test', 'bob@silent.test', 'cyd@silent.test'];
/** What a job id of a check's or the finder's first job looks like in the commands that add it. */
const FIRST_JOB = /\b(?:ver|fnd)_[A-Za-z0-9]{24}\.(?:dns\.inspect|smtp\.probe)\.0/;
const REFUNDED = /charge sweep: refunded/;
const KEPT = /charge sweep: kept/;

interface Transaction {
  kind: string;
  delta: number;
  reason: string;
  ref: string | null;
  createdAt: string;
}

interface SweepLine {
  ref: string;
  kind: string;
  refunded: number;
}

function scenario(): Scenario {
  return {
    servers: {
      'mx.owners.test': { catchAll: true },
      'mx.ok.test': {},
      // Says nothing, ever: a check there is under way until its deadline.
      'mx.silent.test': { silent: true },
      // Answers, slowly: a check there is under way for a few seconds, then answered.
      'mx.slow.test': { latencyMs: 800 },
    },
    domains: {
      'owners.test': { mx: [{ host: 'mx.owners.test', priority: 10 }] },
      'ok.test': { mx: [{ host: 'mx.ok.test', priority: 10 }], mailboxes: { 'jane.doe': 'ok' } },
      'silent.test': { mx: [{ host: 'mx.silent.test', priority: 10 }] },
      'slow.test': { mx: [{ host: 'mx.slow.test', priority: 10 }], mailboxes: { 'jane.doe': 'ok' } },
    },
  };
}

/**
 * Charges always have answers: a gateway killed between the charges of a single check, a batch
 * and a finder call and their first jobs leaves them open, and the charge sweep of the gateway
 * started next refunds each once, after the deadline plus the margin, as refund rows in the
 * ledger (and as unknown, free checks in the usage). In-process, the kill comes while the checks
 * are under way (their jobs lived in the process); over BullMQ, while the gateway's connection to
 * Redis holds the commands that add the first jobs, so that none is ever queued — and two
 * gateways sweep at once. A check the workers answered for a killed gateway is kept, not refunded.
 */
export function chargeSweepSuite(driver: Driver): void {
  jest.setTimeout(120_000);

  const distributed = driver === 'bullmq';
  const prefix = `mgsweep:${randomBytes(6).toString('hex')}:`;
  const dirs: string[] = [];
  let lab: Lab;
  let database: TestDatabase;
  let workers: RunningProcess[] = [];
  const gateways: RunningProcess[] = [];
  let proxy: StallingProxy | null = null;

  function workDir(): string {
    const dir = mkdtempSync(join(tmpdir(), 'mailguard-sweep-'));
    dirs.push(dir);
    return dir;
  }

  function env(redisUrl = TEST_REDIS_URL): Record<string, string> {
    return {
      ...lab.env,
      ...E2E_CLUSTER_ENV,
      DATABASE_URL: database.url,
      ...(distributed ? { REDIS_URL: redisUrl, REDIS_PREFIX: prefix } : {}),
      // A silent server keeps its checks waiting until the deadline, not the SMTP timeout.
      SMTP_TIMEOUT_MS: String(DEADLINE_MS * 2),
      CHECK_DEADLINE_MS: String(DEADLINE_MS),
      CHARGE_SWEEP_MARGIN_MS: String(MARGIN_MS),
      RATE_LIMIT_PER_MINUTE: '100000',
      LOG_LEVEL: 'info',
    };
  }

  async function startGateway(redisUrl?: string): Promise<{ gateway: RunningProcess; api: ApiCall }> {
    const gateway = await startGatewayProcess(env(redisUrl), workDir());
    gateways.push(gateway);
    return { gateway, api: apiClient(gateway.url) };
  }

  async function ledger(api: ApiCall, key: string): Promise<Transaction[]> {
    const { body } = await api<{ data: Transaction[] }>('GET', '/v1/credits/transactions?limit=100', { key });
    return body.data.filter((row) => row.kind !== 'grant').reverse();
  }

  async function redisKeyExists(name: string): Promise<boolean> {
    const redis = new Redis(TEST_REDIS_URL);
    try {
      return (await redis.exists(name)) === 1;
    } finally {
      redis.disconnect();
    }
  }

  async function balance(api: ApiCall, key: string): Promise<number> {
    return (await api<{ balance: number }>('GET', '/v1/credits', { key })).body.balance;
  }

  const sweepLines = (lines: string[]) =>
    lines.map((line) => JSON.parse(line) as SweepLine).sort((a, b) => a.ref.localeCompare(b.ref));

  /** Ends the gateways still running (gracefully: a sweep under way finishes first). */
  async function stopGateways(): Promise<void> {
    await Promise.all(gateways.splice(0).map((gateway) => gateway.stop()));
  }

  beforeAll(async () => {
    [lab, database] = await Promise.all([startLab(scenario()), createTestDatabase()]);
    if (distributed)
      workers = await Promise.all(WORKER_KINDS.map((kind) => startWorkerProcess(kind, env(), workDir())));
  });

  afterAll(async () => {
    await Promise.all([...gateways, ...workers].map((process) => process.stop('SIGKILL')));
    await proxy?.close();
    await Promise.all([lab?.stop(), database?.drop()]);
    if (distributed) await flushRedisPrefix(prefix);
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('refunds once each charge a gateway killed before its first job left open, after the deadline and the margin', async () => {
    if (distributed) proxy = await startStallingProxy(new URL(TEST_REDIS_URL), FIRST_JOB);
    const first = await startGateway(proxy?.url);
    const { apiKey: key } = await signupAt(first.api, 'owners.test');

    // Answered: its gateway settles it; nothing for the sweep.
    const answered = await first.api<{ reason: string }>('GET', '/v1/email-validation/jane.doe@ok.test', { key });
    expect(answered.body.reason).toBe('accepted_email');
    const before = await balance(first.api, key);
    proxy?.arm();

    const inFlight = [
      first.api('GET', '/v1/email-validation/dan@silent.test', { key }),
      first.api('POST', '/v1/email-validation/batch', { key, body: { emails: BATCH } }),
      first.api('GET', '/v1/email-finder?firstName=Eve&lastName=Stone&domain=silent.test', { key }),
    ].map((request) => request.catch(() => null));
    let jobIds: string[] = [];
    if (proxy) {
      // Every first job's command reached the held connection, none reached Redis: charged, not queued.
      jobIds = await proxy.matches(1 + BATCH.length + 1);
    } else {
      // Charged, and under way in the process that is about to die with their jobs.
      const charged = async () => (await ledger(first.api, key)).filter((row) => row.kind === 'charge').length;
      while ((await charged()) < 4) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await first.gateway.stop('SIGKILL')).toBeNull();
    expect(await Promise.all(inFlight)).toEqual([null, null, null]);

    // Over BullMQ two gateways come back and sweep side by side: each charge is still refunded once.
    const next = await Promise.all((distributed ? [1, 2] : [1]).map(() => startGateway()));
    const swept = sweepLines(
      await waitForLines(
        next.map(({ gateway }) => gateway),
        REFUNDED,
        3,
      ),
    );
    const { api } = next[0];
    const rows = await ledger(api, key);
    const charges = rows.filter((row) => row.kind === 'charge');
    expect(charges).toHaveLength(4);
    const [answeredCharge, ...lost] = charges;
    const byRef = (a: { ref: string | null }, b: { ref: string | null }) => String(a.ref).localeCompare(String(b.ref));
    expect(swept.map(({ ref, refunded }) => ({ ref, refunded }))).toEqual(
      lost.map(({ ref, delta }) => ({ ref, refunded: -delta })).sort(byRef),
    );
    expect(swept.map(({ kind }) => kind).sort()).toEqual(['batch', 'finder', 'single']);
    for (const charge of lost) {
      const refunds = rows.filter((row) => row.ref === charge.ref && row.kind === 'refund');
      expect(refunds).toEqual([
        expect.objectContaining({ kind: 'refund', delta: -charge.delta, reason: SWEPT_REASON, ref: charge.ref }),
      ]);
      // Never before the check's deadline (the margin comes on top).
      expect(Date.parse(refunds[0].createdAt) - Date.parse(charge.createdAt)).toBeGreaterThanOrEqual(DEADLINE_MS);
    }
    // Over BullMQ, none of the first jobs was ever queued.
    for (const jobId of jobIds) {
      const queue = jobId.endsWith('.smtp.probe.0') ? 'smtp' : 'dns';
      expect(await redisKeyExists(`${prefix}bull:${queue}:${jobId}`)).toBe(false);
    }
    expect(rows.filter((row) => row.ref === answeredCharge.ref)).toEqual([answeredCharge]);
    expect(await balance(api, key)).toBe(before);
    expect(await database.query('SELECT ref FROM open_charges')).toEqual([]);

    // The usage says what the ledger says: the lost checks are there, unknown and free; the finder's is not.
    const { body: usage } = await api<{ data: Array<{ kind: string; checks: number; credits: number }> }>(
      'GET',
      '/v1/credits/usage',
      { key },
    );
    expect(usage.data.map(({ kind, checks, credits }) => ({ kind, checks, credits }))).toEqual([
      { kind: 'batch', checks: BATCH.length, credits: 0 },
      { kind: 'single', checks: 2, credits: 1 },
    ]);
    await stopGateways();
  });

  if (distributed)
    it('keeps the charge of a check the workers answered for a killed gateway', async () => {
      const { gateway, api } = await startGateway();
      const { apiKey: key } = await signupAt(api, 'owners.test');
      const sessions = lab.stats('mx.slow.test').sessions;
      const check = api('GET', '/v1/email-validation/jane.doe@slow.test', { key }).catch(() => null);
      // The smtp-worker has the job: the answer no longer needs the gateway.
      while (lab.stats('mx.slow.test').sessions === sessions) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await gateway.stop('SIGKILL')).toBeNull();
      expect(await check).toBeNull();

      const next = await startGateway();
      const [line] = await waitForLines(next.gateway, KEPT);
      const [charge] = (await ledger(next.api, key)).filter((row) => row.kind === 'charge');
      expect(JSON.parse(line)).toMatchObject({ ref: charge.ref, kind: 'single', refunded: 0 });
      expect((await ledger(next.api, key)).filter((row) => row.ref === charge.ref)).toEqual([charge]);
      const { body: usage } = await next.api<{ data: Array<{ kind: string; checks: number; credits: number }> }>(
        'GET',
        '/v1/credits/usage',
        { key },
      );
      expect(usage.data).toEqual([expect.objectContaining({ kind: 'single', checks: 1, credits: 1 })]);
      await stopGateways();
    });
}
