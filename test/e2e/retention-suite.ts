import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Database } from '@mailguard/db';
import type { ListView } from '@mailguard/lists';
import { createLogger } from '@mailguard/logger';
import type { Erased } from '@mailguard/retention';
import { startLab, type Lab } from '../lab';
import { loadScenario } from '../lab/scenario';
import { apiClient, signupAt, type ApiCall } from '../support/api-client';
import { E2E_CLUSTER_ENV } from '../support/cluster-env';
import { nextLine, startCluster, startGatewayProcess, type RunningProcess } from '../support/processes';
import { createTestDatabase, flushRedisPrefix, TEST_REDIS_URL, type TestDatabase } from '../support/services';
import { filesHolding, findText, type Query } from '../support/text-scan';
import type { Driver } from './api-suite';

/** What each sweep reports in its log line. */
type SweepReport = Omit<Erased, 'cutoff'> & { cutoff: string; stagingFolders: number };

/**
 * Addresses the test has the service keep, and the text that gives each away wherever it is
 * stored (a distinctive local part where the service also keeps it alone, the whole address where
 * the local part is too common a word to look for).
 */
const SINGLE = ['john.doe@acme.test', 'inactive.user@acme.test'];
const BATCH = ['jane@acme.test', 'gone@acme.test'];
const REPORTED = 'mwong@acme.test';
const LIST_CSV = [
  'email,name',
  'lisa.wong@catchall.test,Lisa Wong',
  'admin@acme.test,Admin',
  'lisa.wong@catchall.test,Lisa again',
  'not-an-address,Nobody',
].join('\n');
const TELLTALES = [
  'john.doe',
  'inactive.user',
  'jane',
  'gone@acme.test',
  'mwong',
  'lisa.wong',
  'admin@acme.test',
  'not-an-address',
];

/**
 * RETENTION_DAYS=0 with a sweep every second against the built service: addresses checked one by
 * one, in a batch, reported, and uploaded in a list all go from every table (every text and JSON
 * column of every table is searched) and every file (no staged upload is left; the embedded
 * database's files hold none), while the list object, its
 * counts, the usage and the ledger stay, and the list's results answer 410 `expired` on REST (JSON
 * and CSV) and MCP. Waits on the sweeps' own log lines. Run on the in-process driver over the
 * embedded PGlite, and on BullMQ with the workers over Postgres and Redis.
 */
export function retentionSuite(driver: Driver): void {
  jest.setTimeout(180_000);

  const distributed = driver === 'bullmq';
  const prefix = `mgretention:${randomBytes(6).toString('hex')}:`;
  let lab: Lab;
  let database: TestDatabase | null = null;
  let cwd: string;
  const started: RunningProcess[] = [];

  beforeAll(async () => {
    lab = await startLab(loadScenario());
    if (distributed) database = await createTestDatabase();
    cwd = mkdtempSync(join(tmpdir(), 'mailguard-retention-'));
  });

  afterAll(async () => {
    await Promise.all(started.map((process) => process.stop()));
    await lab?.stop();
    await database?.drop();
    if (distributed) await flushRedisPrefix(prefix);
    rmSync(cwd, { recursive: true, force: true });
  });

  function env(): Record<string, string> {
    return {
      ...lab.env,
      ...E2E_CLUSTER_ENV,
      ...(distributed ? { DATABASE_URL: database!.url, REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: prefix } : {}),
      RETENTION_DAYS: '0',
      RETENTION_SWEEP_SECONDS: '1',
      // The sweeps' lines are at info.
      LOG_LEVEL: 'info',
    };
  }

  /** The gateway's next sweep line that `accept` takes (a bounded wait: the sweeps run every second). */
  async function sweep(gateway: RunningProcess, accept: (report: SweepReport) => boolean): Promise<SweepReport> {
    const report = (line: string) => (JSON.parse(line) as { retention: SweepReport }).retention;
    const line = await nextLine(gateway, (text) => text.includes('"retention sweep done"') && accept(report(text)));
    return report(line);
  }

  /** Every sweep line the process wrote, summed. */
  function erasedBy(processes: RunningProcess[]) {
    const total = { checks: 0, lists: 0, listRows: 0, feedback: 0, evidence: 0, queries: 0 };
    for (const process of processes)
      for (const line of process.output().split('\n'))
        if (line.includes('"retention sweep done"')) {
          const report = (JSON.parse(line) as { retention: SweepReport }).retention;
          for (const key of Object.keys(total) as Array<keyof typeof total>) total[key] += report[key];
        }
    return total;
  }

  async function callTool(url: string, key: string, name: string, args: Record<string, unknown>) {
    const client = new Client({ name: 'e2e-retention', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { 'X-API-Key': key } } }),
    );
    try {
      return (await client.callTool({ name, arguments: args })) as CallToolResult;
    } finally {
      await client.close();
    }
  }

  /** What stays: the list object, the answers for its rows (410), the usage and the ledger. */
  async function kept(api: ApiCall, url: string, key: string, id: string) {
    const list = await api<ListView>('GET', `/v1/lists/${id}`, { key });
    expect(list.status).toBe(200);
    for (const format of ['json', 'csv']) {
      const results = await api(`GET`, `/v1/lists/${id}/results?format=${format}`, { key });
      expect(results.status).toBe(410);
      expect(results.body).toEqual({ error: expect.stringContaining('retention'), code: 'expired' });
    }
    const tool = await callTool(url, key, 'list_results', { id });
    expect(tool.isError).toBe(true);
    expect(JSON.parse((tool.content[0] as { text: string }).text)).toMatchObject({ code: 'expired' });
    return {
      list: list.body,
      lists: (await api<{ data: ListView[] }>('GET', '/v1/lists', { key })).body.data,
      usage: (await api('GET', '/v1/credits/usage', { key })).body,
      transactions: (await api('GET', '/v1/credits/transactions?limit=100', { key })).body,
      credits: (await api('GET', '/v1/credits', { key })).body,
    };
  }

  /** Files left in a gateway's staging folder. */
  function staged(gateway: RunningProcess): string[] {
    const dir = join(tmpdir(), `mailguard-uploads-${gateway.child.pid}`);
    return existsSync(dir) ? readdirSync(dir, { recursive: true }).map(String) : [];
  }

  it('erases every address past retention from every table and file; lists answer 410 expired; ledger and counts stay', async () => {
    const cluster = await startCluster(env(), distributed, () => cwd);
    started.push(...cluster.processes);
    const { gateway } = cluster;
    const api = apiClient(gateway.url);
    const { apiKey: key } = await signupAt(api, 'catchall.test');

    for (const email of SINGLE)
      expect((await api('GET', `/v1/email-validation/${encodeURIComponent(email)}`, { key })).status).toBe(200);
    expect((await api('POST', '/v1/email-validation/batch', { key, body: { emails: BATCH } })).status).toBe(200);
    expect(
      (await api('POST', '/v1/email-validation/feedback', { key, body: { email: REPORTED, outcome: 'bounced' } }))
        .status,
    ).toBe(202);
    const form = new FormData();
    form.append('file', new Blob([LIST_CSV], { type: 'text/csv' }), 'leads.csv');
    const upload = await fetch(`${gateway.url}/v1/lists`, {
      method: 'POST',
      headers: { 'X-API-Key': key },
      body: form,
    });
    expect(upload.status).toBe(202);
    const { id } = (await upload.json()) as ListView;

    // The list's rows go at the first sweep after it completes, while the service runs.
    await sweep(gateway, (report) => report.lists > 0);
    const before = await kept(api, gateway.url, key, id);
    expect(before.list).toMatchObject({
      id,
      status: 'completed',
      total: 4,
      processed: 4,
      duplicates: 1,
      counts: { valid: 0, risky: 3, invalid: 1 },
      creditsCharged: 2,
      expiredAt: expect.any(String),
    });
    expect(before.lists.map((list) => [list.id, list.expiredAt])).toEqual([[id, before.list.expiredAt]]);
    // The usage of the erased checks is still theirs.
    expect(before.usage).toMatchObject({
      data: expect.arrayContaining([
        expect.objectContaining({ kind: 'single', checks: 2 }),
        expect.objectContaining({ kind: 'batch', checks: 2 }),
      ]),
    });

    // Everything stopped, a gateway alone sweeps at its start: whatever was written last (what the
    // scoring learnt after the list settled) is older than that sweep.
    await Promise.all(cluster.processes.map((process) => process.stop()));
    const again = await startGatewayProcess(env(), cwd);
    started.push(again);
    await sweep(again, () => true);
    expect(await kept(apiClient(again.url), again.url, key, id)).toEqual(before);
    const erased = erasedBy([gateway, again]);
    expect(erased).toMatchObject({ lists: 1, listRows: 4, feedback: 1 });
    expect(erased.checks).toBeGreaterThanOrEqual(SINGLE.length + BATCH.length);
    // john.doe and jane accepted by a strict server, lisa.wong registered at a catch-all domain.
    expect(erased.evidence).toBeGreaterThanOrEqual(3);
    // lisa.wong was queried at her catch-all domain too.
    expect(erased.queries).toBeGreaterThanOrEqual(1);
    expect(await again.stop()).toBe(0);

    expect([...staged(gateway), ...staged(again)]).toEqual([]);
    const embedded = database
      ? null
      : await Database.open(
          { url: null, embeddedDataDir: join(cwd, 'data') },
          createLogger({ level: 'silent', hashKey: 'test', secrets: [] }, 'test'),
        );
    try {
      const query: Query = database ? database.query : (sql, params) => embedded!.dataSource.query(sql, params);
      expect(await findText(query, TELLTALES)).toEqual([]);
      // The search finds what is there: the account's own address is kept.
      expect((await findText(query, ['@catchall.test'])).length).toBeGreaterThan(0);
    } finally {
      await embedded?.stop();
    }
    // Nor in the embedded database's own files: no dead row, no log record.
    if (!database) expect(filesHolding(join(cwd, 'data'), TELLTALES)).toEqual([]);
  });
}
