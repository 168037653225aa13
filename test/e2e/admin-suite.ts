import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { AuditEntryView, OperatorAccountView } from '@mailguard/accounts';
import { Database } from '@mailguard/db';
import type { ListView } from '@mailguard/lists';
import { createLogger } from '@mailguard/logger';
import { startLab, type Lab } from '../lab';
import { loadScenario } from '../lab/scenario';
import { apiClient, type ApiCall, type ApiResponse } from '../support/api-client';
import { E2E_CLUSTER_ENV } from '../support/cluster-env';
import { startCluster, startGatewayProcess, type RunningProcess } from '../support/processes';
import { createTestDatabase, flushRedisPrefix, TEST_REDIS_URL, type TestDatabase } from '../support/services';
import { filesHolding, findText, type Query } from '../support/text-scan';
import type { Driver } from './api-suite';

const BIN = resolve(__dirname, '../../bin/mailguard.js');
const TOKEN = `admin-${randomBytes(12).toString('hex')}`;

interface Page<T> {
  data: T[];
  page: number;
  limit: number;
  total: number;
}

/** Mailboxes that greylist for ever: each row is retried (GREYLIST_RETRY_SECONDS) before it settles, so the list runs a while. */
const STUBBORN = ['later1', 'later2', 'later3'];

/** What the erased account checks, reports and uploads, and the text that gives each away wherever it is stored. */
// At a catch-all domain a check is also a query there (domain_queries), which must go too.
const ERASE_SINGLE = ['john.doe@acme.test', 'inactive.user@acme.test', 'erase.query@catchall.test'];
const ERASE_BATCH = ['jane@acme.test', 'gone@acme.test'];
const ERASE_REPORTED = 'mwong@acme.test';
const ERASE_CSV = ['email,name', 'nosuch.erase@acme.test,Nobody', 'not-an-address,Nothing'].join('\n');
const ERASE_ORIGIN = 'https://erase-shop.example';
const TELLTALES = [
  'john.doe',
  'inactive.user',
  'erase.query',
  'jane',
  'gone@acme.test',
  'mwong',
  'nosuch.erase',
  'not-an-address',
  'erase-shop',
];

/** Polls `probe` until `done` holds of its answer, or fails at the deadline (no sleep stands for an assertion). */
async function until<T>(probe: () => Promise<T>, done: (value: T) => boolean, what: string, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}; last: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * The operator console (docs/operations.md#operator-console) against the built service: ADMIN_TOKEN
 * (404 without it, 401 when wrong), credits granted and taken back (never below zero) with their
 * ledger and audit rows, a suspension refusing the account's secret keys, widget keys and MCP with
 * 403 account_suspended and pausing its running list until unsuspended, an erasure leaving no trace
 * of the account's addresses in any table (nor, embedded, in the database's files) while its ledger
 * stays anonymised, and the CLI's admin commands. On BullMQ a second gateway, without ADMIN_TOKEN,
 * sees a suspension made on the first.
 */
export function adminSuite(driver: Driver): void {
  jest.setTimeout(180_000);

  const distributed = driver === 'bullmq';
  const prefix = `mgadmin:${randomBytes(6).toString('hex')}:`;
  let lab: Lab;
  let database: TestDatabase | null = null;
  let cwd: string;
  const started: RunningProcess[] = [];
  let gateway: RunningProcess;
  let api: ApiCall;

  function scenario() {
    const base = loadScenario();
    base.servers!['mx.stubborn.test'] = {};
    base.domains!['stubborn.test'] = {
      mx: [{ host: 'mx.stubborn.test', priority: 10 }],
      mailboxes: Object.fromEntries(STUBBORN.map((box) => [box, '451 4.7.1 Greylisted, please try again later'])),
    };
    return base;
  }

  function env(extra: Record<string, string> = { ADMIN_TOKEN: TOKEN }): Record<string, string> {
    return {
      ...lab.env,
      ...E2E_CLUSTER_ENV,
      ...(distributed ? { DATABASE_URL: database!.url, REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: prefix } : {}),
      RATE_LIMIT_PER_MINUTE: '100000',
      GREYLIST_RETRY_SECONDS: '1',
      ...extra,
    };
  }

  const admin = <T = Record<string, unknown>>(method: string, path: string, body?: unknown) =>
    api<T>(method, path, { headers: { Authorization: `Bearer ${TOKEN}` }, body });

  /** A new account at the lab's catch-all domain (the sign-up check must reach it). */
  async function signup(): Promise<{ key: string; id: string; email: string }> {
    const email = `owner.${randomBytes(4).toString('hex')}@catchall.test`;
    const response = await api<{ apiKey: string; account: { id: string } }>('POST', '/v1/accounts', {
      body: { email },
    });
    expect(response.status).toBe(201);
    return { key: response.body.apiKey, id: response.body.account.id, email };
  }

  async function upload(key: string, csv: string, name: string): Promise<ListView> {
    const form = new FormData();
    form.append('file', new Blob([csv], { type: 'text/csv' }), name);
    const response = await fetch(`${gateway.url}/v1/lists`, {
      method: 'POST',
      headers: { 'X-API-Key': key },
      body: form,
    });
    expect(response.status).toBe(202);
    return (await response.json()) as ListView;
  }

  const accountOf = async (id: string, email: string) =>
    (
      await admin<Page<OperatorAccountView>>('GET', `/admin/accounts?email=${encodeURIComponent(email)}`)
    ).body.data.find((account) => account.id === id);

  function mcpInitialize(url: string, key: string): Promise<ApiResponse> {
    return apiClient(url)('POST', '/mcp', {
      key,
      headers: { Accept: 'application/json, text/event-stream' },
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'e2e-admin', version: '1' } },
      },
    });
  }

  function cli(args: string[], extra: Record<string, string> = {}) {
    const child = spawn(process.execPath, [BIN, 'admin', ...args], {
      env: { PATH: process.env.PATH ?? '', MAILGUARD_API_URL: gateway.url, ADMIN_TOKEN: TOKEN, ...extra },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin.end();
    return new Promise<{ code: number | null; stdout: string; stderr: string }>((done) =>
      child.once('close', (code) => done({ code, stdout, stderr })),
    );
  }

  beforeAll(async () => {
    lab = await startLab(scenario());
    if (distributed) database = await createTestDatabase();
    cwd = mkdtempSync(join(tmpdir(), 'mailguard-admin-'));
    const cluster = await startCluster(env(), distributed, () => cwd);
    started.push(...cluster.processes);
    gateway = cluster.gateway;
    api = apiClient(gateway.url);
  });

  afterAll(async () => {
    await Promise.all(started.map((process) => process.stop()));
    await lab?.stop();
    await database?.drop();
    if (distributed) await flushRedisPrefix(prefix);
    rmSync(cwd, { recursive: true, force: true });
  });

  it('answers 401 without the token or with a wrong one (never read from the query string)', async () => {
    const attempts: Array<Record<string, string>> = [
      {},
      { Authorization: 'Bearer wrong-token' },
      { Authorization: `Basic ${TOKEN}` },
    ];
    for (const headers of attempts) {
      const response = await api('GET', '/admin/accounts', { headers });
      expect(response.status).toBe(401);
      expect(response.body).toMatchObject({ code: 'unauthorized' });
    }
    expect((await api('GET', `/admin/accounts?token=${TOKEN}&access_token=${TOKEN}`)).status).toBe(401);
    expect((await api('POST', '/admin/accounts/acc_x/suspend', { body: { reason: 'x' } })).status).toBe(401);
    expect((await admin('GET', '/admin/accounts')).status).toBe(200);
  });

  it('grants credits and takes them back, never below zero, each with its ledger row and audit entry', async () => {
    const account = await signup();
    const before = await accountOf(account.id, account.email);
    expect(before).toMatchObject({
      id: account.id,
      email: account.email,
      status: 'active',
      held: 0,
      lastActiveAt: null,
    });
    const start = before!.balance;

    const granted = await admin('POST', `/admin/accounts/${account.id}/credits`, { amount: 500, reason: 'goodwill' });
    expect(granted.status).toBe(201);
    expect(granted.body).toMatchObject({ kind: 'grant', delta: 500, reason: 'goodwill', balanceAfter: start + 500 });
    const taken = await admin('POST', `/admin/accounts/${account.id}/credits`, { amount: -200, reason: 'refund undo' });
    expect(taken.status).toBe(201);
    expect(taken.body).toMatchObject({ kind: 'adjust', delta: -200, balanceAfter: start + 300 });

    const overdraw = await admin('POST', `/admin/accounts/${account.id}/credits`, {
      amount: -(start + 301),
      reason: 'too much',
    });
    expect(overdraw.status).toBe(409);
    expect(overdraw.body).toMatchObject({ code: 'conflict' });
    for (const body of [
      { amount: 0, reason: 'nothing' },
      { amount: 1.5, reason: 'half' },
      { amount: '10', reason: 'text' },
      { amount: 10 },
      { amount: 10, reason: '' },
    ]) {
      const refused = await admin('POST', `/admin/accounts/${account.id}/credits`, body);
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ code: 'bad_request' });
    }
    expect((await admin('POST', '/admin/accounts/acc_nobody/credits', { amount: 5, reason: 'x' })).status).toBe(404);

    // The customer sees the balance and the rows, whichever gateway cached the key.
    const credits = await api('GET', '/v1/credits', { key: account.key });
    expect(credits.headers.get('x-credits-remaining')).toBe(String(start + 300));
    const ledger = await api<{ data: Array<{ kind: string; delta: number; reason: string }> }>(
      'GET',
      '/v1/credits/transactions',
      { key: account.key },
    );
    expect(ledger.body.data.slice(0, 2)).toEqual([
      expect.objectContaining({ kind: 'adjust', delta: -200, reason: 'refund undo' }),
      expect.objectContaining({ kind: 'grant', delta: 500, reason: 'goodwill' }),
    ]);
    expect((await accountOf(account.id, account.email))?.lastActiveAt).toEqual(expect.any(String));

    const audit = await admin<Page<AuditEntryView>>('GET', `/admin/audit?accountId=${account.id}`);
    expect(audit.status).toBe(200);
    expect(audit.body.data.map((entry) => [entry.actor, entry.action, entry.target, entry.detail])).toEqual([
      ['operator', 'account.adjust', account.id, '-200: refund undo'],
      ['operator', 'account.grant', account.id, '+500: goodwill'],
    ]);
    expect(audit.body.data[0]).toMatchObject({ clientIp: expect.any(String), requestId: expect.any(String) });
    expect((await admin<Page<AuditEntryView>>('GET', '/admin/audit?limit=100')).body.total).toBeGreaterThanOrEqual(2);
  });

  it('suspends: keys, widget keys and MCP answer 403 account_suspended, the running list pauses; unsuspended, all resume and the list completes', async () => {
    const account = await signup();
    const widget = await api<{ key: string }>('POST', '/v1/keys', {
      key: account.key,
      body: { name: 'site', scope: 'verify', type: 'widget' },
    });
    expect(widget.status).toBe(201);
    const widgetVerify = () =>
      api('POST', '/v1/widget/verify', {
        headers: { 'X-API-Key': widget.body.key, Origin: 'https://shop.example' },
        body: { email: 'info@acme.test' },
      });
    expect((await widgetVerify()).status).toBe(200);

    const list = await upload(
      account.key,
      ['email', ...STUBBORN.map((box) => `${box}@stubborn.test`)].join('\n'),
      'slow.csv',
    );
    const suspended = await admin<OperatorAccountView>('POST', `/admin/accounts/${account.id}/suspend`, {
      reason: 'abuse report',
    });
    expect(suspended.status).toBe(200);
    expect(suspended.body).toMatchObject({ id: account.id, status: 'suspended', held: list.creditsHeld });
    expect(list.creditsHeld).toBe(STUBBORN.length);

    for (const response of [
      await api('GET', '/v1/credits', { key: account.key }),
      await api('GET', '/v1/email-validation/info%40acme.test', { key: account.key }),
      await widgetVerify(),
      await mcpInitialize(gateway.url, account.key),
    ]) {
      expect(response.status).toBe(403);
      expect(response.body).toMatchObject({ code: 'account_suspended' });
    }
    const audit = await admin<Page<AuditEntryView>>('GET', `/admin/audit?accountId=${account.id}`);
    expect(audit.body.data[0]).toMatchObject({
      actor: 'operator',
      action: 'account.suspend',
      detail: `abuse report (lists paused: ${list.id})`,
    });
    if (database) {
      const [row] = await database.query<{ status: string }>('SELECT status FROM lists WHERE id = $1', [list.id]);
      expect(row.status).toBe('paused');
    }
    // Credits stay held while paused.
    expect(await accountOf(account.id, account.email)).toMatchObject({ status: 'suspended', held: list.creditsHeld });

    const resumed = await admin<OperatorAccountView>('POST', `/admin/accounts/${account.id}/unsuspend`, {});
    expect(resumed.status).toBe(200);
    expect(resumed.body.status).toBe('active');
    expect((await api('GET', '/v1/credits', { key: account.key })).status).toBe(200);
    expect((await widgetVerify()).status).toBe(200);
    expect((await mcpInitialize(gateway.url, account.key)).status).toBe(200);
    const done = await until(
      async () => (await api<ListView>('GET', `/v1/lists/${list.id}`, { key: account.key })).body,
      (view) => view.status === 'completed',
      'the resumed list to complete',
    );
    expect(done).toMatchObject({ processed: STUBBORN.length, creditsHeld: 0 });
    expect(await accountOf(account.id, account.email)).toMatchObject({ status: 'active', held: 0 });
    const actions = (await admin<Page<AuditEntryView>>('GET', `/admin/audit?accountId=${account.id}`)).body.data;
    expect(actions[0]).toMatchObject({ actor: 'operator', action: 'account.unsuspend' });
  });

  it('lists accounts by any part of their address, whatever its case, with paging', async () => {
    const account = await signup();
    const part = account.email.slice(0, 10).toUpperCase();
    const found = await admin<Page<OperatorAccountView>>(
      'GET',
      `/admin/accounts?email=${encodeURIComponent(part)}&limit=5`,
    );
    expect(found.body).toMatchObject({ page: 1, limit: 5, total: 1 });
    expect(found.body.data[0]).toMatchObject({ id: account.id, email: account.email, status: 'active' });
    expect((await admin('GET', '/admin/accounts?page=0')).status).toBe(400);
    const all = await admin<Page<OperatorAccountView>>('GET', '/admin/accounts?limit=1000');
    expect(all.body.limit).toBe(100);
    expect(all.body.total).toBeGreaterThanOrEqual(3);
  });

  it('the CLI lists, grants, suspends and unsuspends through the console', async () => {
    const account = await signup();
    const listed = await cli(['accounts', '--email', account.email, '--json']);
    expect(listed).toMatchObject({ code: 0, stderr: '' });
    expect((JSON.parse(listed.stdout) as Page<OperatorAccountView>).data).toEqual([
      expect.objectContaining({ id: account.id, status: 'active' }),
    ]);
    const text = await cli(['accounts', '--email', account.email]);
    expect(text.stdout).toContain(`${account.id}  ${account.email}  active`);

    const granted = await cli(['grant', account.id, '25', '--reason', 'cli grant']);
    expect(granted.code).toBe(0);
    expect(granted.stdout).toMatch(/^txn_\S+ {2}grant \+25 {2}balance \d+\n$/);
    const adjusted = await cli(['grant', account.id, '-5', '--reason', 'cli adjust', '--json']);
    expect(JSON.parse(adjusted.stdout)).toMatchObject({ kind: 'adjust', delta: -5 });
    const tooMuch = await cli(['grant', account.id, '-100000000', '--reason', 'no']);
    expect(tooMuch.code).toBe(1);
    expect(tooMuch.stderr).toContain('409');

    const suspended = await cli(['suspend', account.id, '--reason', 'cli suspension']);
    expect(suspended.code).toBe(0);
    expect(suspended.stdout).toContain(`${account.id}  ${account.email}  suspended`);
    expect((await api('GET', '/v1/credits', { key: account.key })).body).toMatchObject({ code: 'account_suspended' });
    expect((await cli(['unsuspend', account.id])).code).toBe(0);
    expect((await api('GET', '/v1/credits', { key: account.key })).status).toBe(200);

    expect(await cli(['suspend', account.id])).toMatchObject({ code: 2, stderr: expect.stringContaining('--reason') });
    expect(await cli(['erase', account.id])).toMatchObject({ code: 2, stderr: expect.stringContaining('--yes') });
    expect(await cli(['accounts'], { ADMIN_TOKEN: 'wrong' })).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('401'),
    });
    const audit = await cli(['audit', '--account', account.id]);
    expect(audit.stdout).toContain('operator  account.suspend');
  });

  if (distributed)
    it('a suspension made on one gateway is refused on another (which has no ADMIN_TOKEN: 404 there)', async () => {
      const other = await startGatewayProcess(env({}), cwd);
      started.push(other);
      const there = apiClient(other.url);
      expect((await there('GET', '/admin/accounts', { headers: { Authorization: `Bearer ${TOKEN}` } })).status).toBe(
        404,
      );
      expect((await there('GET', '/admin/audit')).body).toEqual({
        error: 'No route for GET /admin/audit',
        code: 'not_found',
      });

      const account = await signup();
      // The second gateway now holds the key in its cache.
      expect((await there('GET', '/v1/credits', { key: account.key })).status).toBe(200);
      expect((await admin('POST', `/admin/accounts/${account.id}/suspend`, { reason: 'fraud' })).status).toBe(200);
      await until(
        () => there('GET', '/v1/credits', { key: account.key }),
        (response) => response.status === 403 && response.body.code === 'account_suspended',
        'the other gateway to refuse the suspended key',
      );
      const granted = await admin<{ balanceAfter: number }>('POST', `/admin/accounts/${account.id}/credits`, {
        amount: 7,
        reason: 'seen everywhere',
      });
      expect((await admin('POST', `/admin/accounts/${account.id}/unsuspend`, {})).status).toBe(200);
      const back = await until(
        () => there('GET', '/v1/credits', { key: account.key }),
        (response) => response.status === 200,
        'the other gateway to serve the unsuspended key',
      );
      expect(back.headers.get('x-credits-remaining')).toBe(String(granted.body.balanceAfter));
      expect(await other.stop()).toBe(0);
    });
  else
    it('answers 404 on every console route when ADMIN_TOKEN is unset, as for an unknown route', async () => {
      const alone = mkdtempSync(join(tmpdir(), 'mailguard-admin-off-'));
      const other = await startGatewayProcess(env({}), alone);
      try {
        const there = apiClient(other.url);
        const unknown = await there('GET', '/admin/nothing-here');
        expect(unknown.status).toBe(404);
        for (const [method, path] of [
          ['GET', '/admin/accounts'],
          ['GET', '/admin/audit'],
          ['POST', '/admin/accounts/acc_x/credits'],
          ['POST', '/admin/accounts/acc_x/suspend'],
          ['DELETE', '/admin/accounts/acc_x'],
        ]) {
          const response = await there(method, path, { headers: { Authorization: `Bearer ${TOKEN}` } });
          expect(response.status).toBe(404);
          expect(response.body).toMatchObject({ code: 'not_found' });
        }
      } finally {
        expect(await other.stop()).toBe(0);
        rmSync(alone, { recursive: true, force: true });
      }
    });

  it('erases an account: no trace of its addresses in any table (nor the embedded files), its ledger anonymised', async () => {
    const account = await signup();
    for (const email of ERASE_SINGLE)
      expect((await api('GET', `/v1/email-validation/${encodeURIComponent(email)}`, { key: account.key })).status).toBe(
        200,
      );
    expect(
      (await api('POST', '/v1/email-validation/batch', { key: account.key, body: { emails: ERASE_BATCH } })).status,
    ).toBe(200);
    expect(
      (
        await api('POST', '/v1/email-validation/feedback', {
          key: account.key,
          body: { email: ERASE_REPORTED, outcome: 'bounced' },
        })
      ).status,
    ).toBe(202);
    expect(
      (await api('PUT', '/v1/widget/settings', { key: account.key, body: { allowedOrigins: [ERASE_ORIGIN] } })).status,
    ).toBe(200);
    const list = await upload(account.key, ERASE_CSV, 'to-erase.csv');
    await until(
      async () => (await api<ListView>('GET', `/v1/lists/${list.id}`, { key: account.key })).body,
      (view) => view.status === 'completed',
      'the list to complete',
    );
    const ledgerBefore = (
      await api<{ total: number }>('GET', '/v1/credits/transactions?limit=100', { key: account.key })
    ).body.total;
    const balance = (await accountOf(account.id, account.email))!.balance;

    const erased = await admin('DELETE', `/admin/accounts/${account.id}`);
    expect(erased.status).toBe(204);
    expect((await api('GET', '/v1/credits', { key: account.key })).status).toBe(401);
    const view = await accountOf(account.id, `erased-${account.id.toLowerCase()}@invalid`);
    expect(view).toMatchObject({ status: 'erased', name: null, balance, held: 0 });
    expect((await admin('DELETE', `/admin/accounts/${account.id}`)).status).toBe(409);
    expect((await admin('POST', `/admin/accounts/${account.id}/credits`, { amount: 1, reason: 'x' })).status).toBe(409);
    const audit = await admin<Page<AuditEntryView>>('GET', `/admin/audit?accountId=${account.id}`);
    expect(audit.body.data[0]).toMatchObject({ actor: 'operator', action: 'account.erase', target: account.id });

    const needles = [...TELLTALES, account.email.split('@')[0]];
    if (database) {
      expect(await findText(database.query, needles)).toEqual([]);
      const [{ rows }] = await database.query<{ rows: number }>(
        'SELECT count(*)::int AS rows FROM credit_transactions WHERE account_id = $1',
        [account.id],
      );
      expect(rows).toBe(ledgerBefore);
      // The search finds what is there.
      expect((await findText(database.query, ['@catchall.test'])).length).toBeGreaterThan(0);
      return;
    }
    // Embedded: the gateway stopped, its database is read here, then its files.
    await Promise.all(started.splice(0).map((process) => process.stop()));
    const embedded = await Database.open(
      { url: null, embeddedDataDir: join(cwd, 'data') },
      createLogger({ level: 'silent', hashKey: 'test', secrets: [] }, 'test'),
    );
    try {
      const query: Query = (sql, params) => embedded.dataSource.query(sql, params);
      expect(await findText(query, needles)).toEqual([]);
      const [{ rows }] = await query<{ rows: number }>(
        'SELECT count(*)::int AS rows FROM credit_transactions WHERE account_id = $1',
        [account.id],
      );
      expect(rows).toBe(ledgerBefore);
      expect((await findText(query, ['@catchall.test'])).length).toBeGreaterThan(0);
    } finally {
      await embedded.stop();
    }
    expect(filesHolding(join(cwd, 'data'), needles)).toEqual([]);
  });
}
