import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLab, type Lab } from '../lab';
import type { Scenario, ServerSpec } from '../lab/scenario';
import { apiClient, signupAt, type ApiCall } from '../support/api-client';
import { startCluster, type RunningProcess } from '../support/processes';
import { createTestDatabase, flushRedisPrefix, TEST_REDIS_URL, type TestDatabase } from '../support/services';
import type { Driver } from './api-suite';

/**
 * Faults survived (issue 14): mail servers that accept a connection and never speak, stall in the
 * middle of a reply, or hang up after RCPT. Every check at them answers by CHECK_DEADLINE_MS,
 * `reachable: unknown` and refunded, or definitely where another MX answers; and once such a host
 * behaves again, it is asked SMTP_MX_CONCURRENCY sessions at a time: no session of the hostile
 * ones kept its slot.
 */
export function hostileMxSuite(driver: Driver): void {
  jest.setTimeout(90_000);

  const DEADLINE_MS = 3_000;
  const MX_CONCURRENCY = 5;
  /** More checks than slots, so that some wait for a slot a hostile session holds. */
  const HOSTILE_CHECKS = MX_CONCURRENCY + 3;
  /** A hang is a failure; the bound is generous so that a busy machine is not one. */
  const ANSWER_BOUND_MS = DEADLINE_MS + 10_000;

  const HOSTILE: Record<string, ServerSpec> = {
    'mx.silent.test': { tls: 'none', silent: true },
    'mx.stall-ehlo.test': { tls: 'none', stallAt: 'ehlo' },
    'mx.stall-mail.test': { tls: 'none', stallAt: 'mail' },
    'mx.stall-rcpt.test': { tls: 'none', stallAt: 'rcpt' },
    'mx.drop-rcpt.test': { tls: 'none', dropAfter: 'rcpt' },
    // The same inside TLS, as at the big providers.
    'mx.tls-stall-mail.test': { tls: 'offered', stallAt: 'mail' },
    'mx.tls-stall-rcpt.test': { tls: 'offered', stallAt: 'rcpt' },
    'mx.tls-drop-rcpt.test': { tls: 'offered', dropAfter: 'rcpt' },
  };
  const domainOf = (host: string) => host.slice('mx.'.length);
  const MAILBOXES = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`user${i}`, 'ok']));

  function scenario(): Scenario {
    const domains: Scenario['domains'] = Object.fromEntries(
      Object.keys(HOSTILE).map((host) => [domainOf(host), { mx: [{ host, priority: 10 }], mailboxes: MAILBOXES }]),
    );
    domains['fallback.test'] = {
      mx: [
        { host: 'mx1.fallback.test', priority: 10 },
        { host: 'mx2.fallback.test', priority: 20 },
      ],
      mailboxes: MAILBOXES,
    };
    domains['owners.test'] = { mx: [{ host: 'mx.owners.test', priority: 10 }], catchAll: true };
    return {
      servers: {
        ...HOSTILE,
        'mx1.fallback.test': { tls: 'offered', stallAt: 'rcpt' },
        'mx2.fallback.test': {},
        'mx.owners.test': {},
      },
      domains,
    };
  }

  const distributed = driver === 'bullmq';
  const prefix = `mghostile:${randomBytes(6).toString('hex')}:`;
  let lab: Lab;
  let database: TestDatabase;
  let api: ApiCall;
  const processes: RunningProcess[] = [];
  /** The processes that hold MX slots: the gateway in one process, the smtp-worker over BullMQ. */
  let probers: RunningProcess[] = [];
  const workDir = () => mkdtempSync(join(tmpdir(), 'mailguard-hostile-'));

  beforeAll(async () => {
    lab = await startLab(scenario());
    database = await createTestDatabase();
    const env = {
      ...lab.env,
      DATABASE_URL: database.url,
      ...(distributed ? { REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: prefix } : {}),
      SMTP_HELO_NAME: 'hostile.mailguard.test',
      SMTP_TIMEOUT_MS: '700',
      SMTP_MX_CONCURRENCY: String(MX_CONCURRENCY),
      // Sessions kept open after good answers go within the suite's patience (expectSlotsFreed).
      SMTP_SESSION_IDLE_MS: '300',
      CHECK_DEADLINE_MS: String(DEADLINE_MS),
      RATE_LIMIT_PER_MINUTE: '100000',
      SIGNUP_LIMIT_PER_IP_HOUR: '1000',
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

  /** Checks the addresses all at once; each must answer (200) within the bound. */
  async function checkAll(apiKey: string, emails: string[]): Promise<Array<{ reachable: string; status: string }>> {
    const responses = await Promise.all(
      emails.map((email) =>
        api<{ reachable: string; status: string }>('GET', `/v1/email-validation/${email}`, {
          key: apiKey,
          signal: AbortSignal.timeout(ANSWER_BOUND_MS),
        }),
      ),
    );
    for (const response of responses) expect(response.status).toBe(200);
    return responses.map((response) => response.body);
  }

  /** Nothing charged twice, nothing lost: one charge per check, one refund per unknown answer, on the same references. */
  async function expectLedger(accountId: string, checks: number, unknown: number): Promise<void> {
    const rows = await database.query<{ ref: string; kind: string; delta: number }>(
      "SELECT ref, kind, delta FROM credit_transactions WHERE account_id = $1 AND kind <> 'grant'",
      [accountId],
    );
    const charges = rows.filter((row) => row.kind === 'charge');
    const refunds = rows.filter((row) => row.kind === 'refund');
    expect(charges).toHaveLength(checks);
    expect(charges.every((row) => row.delta === -1)).toBe(true);
    expect(new Set(charges.map((row) => row.ref)).size).toBe(checks);
    expect(refunds).toHaveLength(unknown);
    expect(refunds.every((row) => row.delta === 1 && charges.some((charge) => charge.ref === row.ref))).toBe(true);
    expect(new Set(refunds.map((row) => row.ref)).size).toBe(unknown);
    expect(rows).toHaveLength(checks + unknown);
  }

  /** The sum over the probers' /metrics of a series' samples for one MX host. */
  async function metricFor(name: string, host: string): Promise<number> {
    const pages = await Promise.all(probers.map(async (process) => (await fetch(process.metrics)).text()));
    // A series that is not there at all reads as 0: the page must at least declare it.
    for (const page of pages) expect(page).toContain(`# TYPE ${name} `);
    const sample = new RegExp(`^${name}\\{[^}]*host="${host.replace(/\./g, '\\.')}"[^}]*\\} (\\S+)$`, 'gm');
    return pages.reduce(
      (sum, page) => sum + [...page.matchAll(sample)].reduce((total, match) => total + Number(match[1]), 0),
      0,
    );
  }

  /**
   * Every slot of the host is given back by its session: the gauge comes down to 0 (read until it
   * does, for a bounded time past the kept sessions' idle time) and no lease had to be taken back at expiry.
   */
  async function expectSlotsFreed(host: string): Promise<void> {
    const patience = Date.now() + 10_000;
    let held = await metricFor('mailguard_mx_slots_held', host);
    while (held > 0 && Date.now() < patience) held = await metricFor('mailguard_mx_slots_held', host);
    expect({ host, held }).toEqual({ host, held: 0 });
    expect({ host, expired: await metricFor('mailguard_mx_lease_expired_total', host) }).toEqual({ host, expired: 0 });
  }

  const mailboxes = (domain: string, from: number, count: number) =>
    Array.from({ length: count }, (_, i) => `user${from + i}@${domain}`);

  // Each host has its own slots: the hosts are tried side by side, which keeps the suite short.
  it.concurrent.each(Object.keys(HOSTILE))(
    'every check at %s answers unknown by its deadline, refunded; turned good, the host is asked SMTP_MX_CONCURRENCY at a time',
    async (host) => {
      const domain = domainOf(host);
      const { apiKey, accountId } = await signupAt(api, 'owners.test');
      const hostile = await checkAll(apiKey, mailboxes(domain, 0, HOSTILE_CHECKS));
      expect(hostile.map((result) => result.reachable)).toEqual(Array(HOSTILE_CHECKS).fill('unknown'));
      expect(lab.stats(host).sessions).toBeGreaterThan(0);
      await expectSlotsFreed(host);

      // Slow enough that sessions overlap: with every slot free, all of them are open at once.
      lab.smtp(host).behave({ silent: undefined, stallAt: undefined, dropAfter: undefined, latencyMs: 200 });
      lab.smtp(host).resetStats();
      const good = await checkAll(apiKey, mailboxes(domain, HOSTILE_CHECKS, MX_CONCURRENCY));
      expect(good.map((result) => result.reachable)).toEqual(Array(MX_CONCURRENCY).fill('safe'));
      expect(lab.stats(host).peakConcurrent).toBe(MX_CONCURRENCY);
      await expectSlotsFreed(host);
      await expectLedger(accountId, HOSTILE_CHECKS + MX_CONCURRENCY, HOSTILE_CHECKS);
    },
  );

  it('a check whose first MX stalls inside TLS answers definitely from the next MX', async () => {
    const { apiKey, accountId } = await signupAt(api, 'owners.test');
    const results = await checkAll(apiKey, mailboxes('fallback.test', 0, 3));
    expect(results.map((result) => result.reachable)).toEqual(['safe', 'safe', 'safe']);
    expect(lab.stats('mx1.fallback.test').sessions).toBeGreaterThan(0);
    // Each check asked the backup (in a session of its own, or one an earlier check left open).
    const asked = lab.stats('mx2.fallback.test').commands.filter((command) => command.startsWith('RCPT'));
    expect(asked.length).toBeGreaterThanOrEqual(3);
    await expectLedger(accountId, 3, 0);
  });
}
