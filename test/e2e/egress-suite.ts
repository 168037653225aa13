import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProberReadiness } from '@mailguard/prober';
import { startLab, type Lab } from '../lab';
import type { Scenario } from '../lab/scenario';
import { apiClient, signupAt, type ApiCall } from '../support/api-client';
import { E2E_CLUSTER_ENV } from '../support/cluster-env';
import { startCluster, type RunningProcess } from '../support/processes';
import { createTestDatabase, flushRedisPrefix, TEST_REDIS_URL, type TestDatabase } from '../support/services';
import type { Driver } from './api-suite';

/**
 * The egress pool against the lab (issue: ready for the real internet): a provider that refuses
 * the first egress is answered through the second, the customer seeing no `unknown` and the
 * per-MX cap held per egress and in total; with every egress refused the answers are
 * `unknown` / `sender_blocked`, refunded, and readiness says `blocked` with the reason; once the
 * provider takes the first egress again and its back-off has run out, it carries the probes again.
 */
export function egressSuite(driver: Driver): void {
  jest.setTimeout(90_000);

  const FIRST = '127.250.3.1';
  const SECOND = '127.250.3.2';
  const CAP = 2;
  // Long enough to still hold when readiness is read after a batch on a loaded CI machine (4 s did not).
  const BLOCK_SECONDS = 10;
  /** The provider's MX: a name the prober knows as Google's, so blocks are keyed `google` for all of its domains. */
  const MX = 'aspmx.l.google.com';
  const OTHER_MX = 'alt1.aspmx.l.google.com';
  const MAILBOXES = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`user${i}`, 'ok']));
  const REFUSAL = 'rcpt';

  const scenario: Scenario = {
    servers: {
      // Slow enough that concurrent checks overlap at the host.
      [MX]: { latencyMs: 100, clients: { [FIRST]: { blockSender: REFUSAL } } },
      [OTHER_MX]: { latencyMs: 50 },
    },
    domains: {
      'first.test': { mx: [{ host: MX, priority: 10 }], mailboxes: MAILBOXES },
      'second.test': { mx: [{ host: MX, priority: 10 }], mailboxes: MAILBOXES },
      'third.test': { mx: [{ host: MX, priority: 10 }], mailboxes: MAILBOXES },
      'owners.test': { mx: [{ host: OTHER_MX, priority: 10 }], catchAll: true },
    },
  };

  const distributed = driver === 'bullmq';
  const prefix = `mgegress:${randomBytes(6).toString('hex')}:`;
  let lab: Lab;
  let database: TestDatabase;
  let api: ApiCall;
  const processes: RunningProcess[] = [];
  let probers: RunningProcess[] = [];
  const workDir = () => mkdtempSync(join(tmpdir(), 'mailguard-egress-'));

  beforeAll(async () => {
    lab = await startLab(scenario);
    database = await createTestDatabase();
    const env = {
      ...lab.env,
      ...E2E_CLUSTER_ENV,
      DATABASE_URL: database.url,
      ...(distributed ? { REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: prefix } : {}),
      SMTP_EGRESS: `local:${FIRST},local:${SECOND}`,
      SMTP_MX_CONCURRENCY: String(CAP),
      SMTP_SESSION_IDLE_MS: '0',
      PROBER_BLOCK_SECONDS: String(BLOCK_SECONDS),
      PROBER_CANARIES: OTHER_MX,
      DNSBL_ZONES: 'zen.dnsbl.test',
      CHECK_DEADLINE_MS: '8000',
      RATE_LIMIT_PER_MINUTE: '100000',
    };
    const cluster = await startCluster(env, distributed, workDir);
    processes.push(...cluster.processes);
    probers = cluster.probers;
    api = apiClient(cluster.gateway.url);
  });

  afterAll(async () => {
    await Promise.all(processes.map((process) => process.stop()));
    await database?.drop();
    await lab?.stop();
    if (distributed) await flushRedisPrefix(prefix);
  });

  interface Answer {
    reachable: string;
    status: string;
    subStatus: string | null;
  }

  async function checkAll(apiKey: string, emails: string[]): Promise<Answer[]> {
    const responses = await Promise.all(
      emails.map((email) => api<Answer>('GET', `/v1/email-validation/${email}`, { key: apiKey })),
    );
    for (const response of responses) expect(response.status).toBe(200);
    return responses.map((response) => response.body);
  }

  const mailboxes = (domain: string, from: number, count: number) =>
    Array.from({ length: count }, (_, i) => `user${from + i}@${domain}`);

  async function readiness(): Promise<ProberReadiness> {
    const response = await api<{ prober: ProberReadiness }>('GET', '/health/ready');
    expect(response.status).toBe(200);
    return response.body.prober;
  }

  /** Readiness once it satisfies `done`: the gateway reads what the probers learnt within a second or so. */
  async function readinessWhen(
    done: (prober: ProberReadiness) => boolean,
    patienceMs = 10_000,
  ): Promise<ProberReadiness> {
    const patience = Date.now() + patienceMs;
    let prober = await readiness();
    while (!done(prober) && Date.now() < patience) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      prober = await readiness();
    }
    return prober;
  }

  async function metrics(): Promise<string> {
    return (await Promise.all(probers.map(async (process) => (await fetch(process.metrics)).text()))).join('\n');
  }

  /** Every charge has its refund, on the same reference: nothing was paid for. */
  async function expectAllRefunded(accountId: string, checks: number): Promise<void> {
    const rows = await database.query<{ ref: string; kind: string }>(
      "SELECT ref, kind FROM credit_transactions WHERE account_id = $1 AND kind IN ('charge', 'refund')",
      [accountId],
    );
    const charges = rows.filter((row) => row.kind === 'charge').map((row) => row.ref);
    const refunds = rows.filter((row) => row.kind === 'refund').map((row) => row.ref);
    expect(charges).toHaveLength(checks);
    expect(refunds.sort()).toEqual(charges.sort());
  }

  it('reports the start-up self-check in readiness: each egress, its public address and its failing checks', async () => {
    const prober = await readinessWhen((found) => found.checkedAt !== null);
    expect(prober.checkedAt).toEqual(expect.any(String));
    expect(prober.egress.map((egress) => [egress.id, egress.publicIp])).toEqual([
      [`local:${FIRST}`, FIRST],
      [`local:${SECOND}`, SECOND],
    ]);
    // The lab gives the egresses no PTR: both are degraded, and readiness says why.
    expect(prober.egress[0].failing).toEqual(expect.arrayContaining(['ptr']));
    expect(prober.status).toBe('degraded');
    expect(prober.reason).toContain(`local:${FIRST} fails`);
  });

  it('a provider that refuses the first egress is answered through the second: no unknown, the cap held per egress and in total', async () => {
    const { apiKey, accountId } = await signupAt(api, 'owners.test');
    lab.resetStats();
    const answers = await checkAll(apiKey, [...mailboxes('first.test', 0, 6), 'nobody@first.test']);
    expect(answers.map((answer) => answer.reachable)).toEqual([...Array(6).fill('safe'), 'invalid']);
    const stats = lab.stats(MX);
    expect(stats.byClient[FIRST]?.sessions).toBeGreaterThan(0);
    expect(stats.byClient[SECOND]?.sessions).toBeGreaterThan(0);
    expect(stats.byClient[SECOND].peakConcurrent).toBeLessThanOrEqual(CAP);
    expect(stats.byClient[FIRST].peakConcurrent).toBeLessThanOrEqual(CAP);
    expect(stats.peakConcurrent).toBeLessThanOrEqual(CAP);
    // Only the answered ones were paid for.
    const rows = await database.query<{ kind: string }>(
      "SELECT kind FROM credit_transactions WHERE account_id = $1 AND kind IN ('charge', 'refund')",
      [accountId],
    );
    expect(rows.filter((row) => row.kind === 'refund')).toHaveLength(0);

    const prober = await readinessWhen((found) => found.egress[0].blocked.length > 0);
    expect(prober.egress[0].blocked).toEqual([
      expect.objectContaining({ provider: 'google', reason: expect.stringContaining('spamhaus') }),
    ]);
    expect(prober.egress[1].blocked).toEqual([]);
    expect(prober.status).toBe('degraded');
    expect(await metrics()).toMatch(
      new RegExp(`mailguard_prober_egress_status\\{[^}]*egress="local:${FIRST}",provider="google"[^}]*\\} 0`),
    );

    // While the block holds, the first egress is not asked at all.
    lab.resetStats();
    const more = await checkAll(apiKey, mailboxes('second.test', 0, 3));
    expect(more.map((answer) => answer.reachable)).toEqual(Array(3).fill('safe'));
    expect(lab.stats(MX).byClient[FIRST]?.sessions ?? 0).toBe(0);
  });

  it('with every egress refused: unknown / sender_blocked, nothing charged, readiness blocked with the reason; then the first egress serves again', async () => {
    lab.smtp(MX).behave({ clients: { [FIRST]: { blockSender: REFUSAL }, [SECOND]: { blockSender: REFUSAL } } });
    const { apiKey, accountId } = await signupAt(api, 'owners.test');
    const answers = await checkAll(apiKey, mailboxes('third.test', 0, 4));
    expect(answers.map((answer) => [answer.reachable, answer.subStatus])).toEqual(
      Array(4).fill(['unknown', 'sender_blocked']),
    );
    expect(answers.every((answer) => answer.status === 'risky')).toBe(true);
    await expectAllRefunded(accountId, 4);
    const prober = await readinessWhen((found) => found.status === 'blocked');
    expect(prober.status).toBe('blocked');
    expect(prober.reason).toContain('no usable egress for google');
    expect(prober.reason).toContain('spamhaus');

    // The provider takes both again; once the first egress's back-off (its second strike: twice the
    // block) has run out, it carries the probes.
    lab.smtp(MX).behave({ clients: {} });
    const ended = await readinessWhen((found) => found.egress[0].blocked.length === 0, 3 * BLOCK_SECONDS * 1000);
    expect(ended.egress[0].blocked).toEqual([]);
    lab.resetStats();
    const back = await checkAll(apiKey, mailboxes('third.test', 10, 3));
    expect(back.map((answer) => answer.reachable)).toEqual(Array(3).fill('safe'));
    expect(lab.stats(MX).byClient[FIRST]?.sessions).toBeGreaterThan(0);
    expect(lab.stats(MX).byClient[SECOND]?.sessions ?? 0).toBe(0);
    const cleared = await readinessWhen((found) => found.egress[0].blocked.length === 0);
    expect(cleared.egress[0].blocked).toEqual([]);
    expect(cleared.status).not.toBe('blocked');
  });
}
