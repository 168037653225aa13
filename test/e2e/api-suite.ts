import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLab, type Lab } from '../lab';
import { loadScenario } from '../lab/scenario';
import { apiClient, type ApiCall } from '../support/api-client';
import { E2E_CLUSTER_ENV } from '../support/cluster-env';
import { startGatewayProcess, startWorkerProcess, WORKER_KINDS, type RunningProcess } from '../support/processes';
import { createTestDatabase, flushRedisPrefix, TEST_REDIS_URL, type TestDatabase } from '../support/services';
import { verifyGuardToken } from '@mailguard/widget';

export type Driver = 'in-process' | 'bullmq';

/**
 * docs/api.md#authentication, §3, §4 (#1, 2, 15–22) and §7 over HTTP: the built gateway on real Postgres, checking
 * addresses in the mail lab; run once with the in-process pipeline (no REDIS_URL) and once with
 * BullMQ on real Redis and the three workers as separate processes. Both must agree.
 */
export function apiSuite(driver: Driver): void {
  jest.setTimeout(120_000);

  const distributed = driver === 'bullmq';
  const suitePrefix = `mgtest:${randomBytes(6).toString('hex')}:`;
  let workers: RunningProcess[] = [];
  let lab: Lab;
  let database: TestDatabase;
  let gateway: RunningProcess;
  let api: ApiCall;
  let signups = 0;

  interface Signup {
    account: { id: string; email: string; credits: number };
    apiKey: string;
    webhookSecret: string;
  }

  const workDir = () => mkdtempSync(join(tmpdir(), 'mailguard-api-'));

  function gatewayEnv(extra: Record<string, string> = {}): Record<string, string> {
    return {
      ...lab.env,
      DATABASE_URL: database.url,
      ...(distributed ? { REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: suitePrefix } : {}),
      ...E2E_CLUSTER_ENV,
      TRUST_PROXY: '1',
      ADMIN_TOKEN: 'admin-secret',
      ...extra,
    };
  }

  /** A fresh account on the lab's catch-all domain: a work address, so 2,500 credits. */
  async function signup(): Promise<Signup> {
    const response = await api<Signup>('POST', '/v1/accounts', {
      body: { email: `user${++signups}.${randomBytes(3).toString('hex')}@catchall.test` },
    });
    expect(response.status).toBe(201);
    return response.body;
  }

  async function createKey(key: string, scope: string, type = 'secret'): Promise<{ id: string; key: string }> {
    const response = await api<{ id: string; key: string }>('POST', '/v1/keys', {
      key,
      body: { name: `${scope} key`, scope, type },
    });
    expect(response.status).toBe(201);
    return response.body;
  }

  async function ledgerSum(accountId: string): Promise<number> {
    const [row] = await database.query<{ sum: string }>(
      'SELECT coalesce(sum(delta), 0) AS sum FROM credit_transactions WHERE account_id = $1',
      [accountId],
    );
    return Number(row.sum);
  }

  beforeAll(async () => {
    lab = await startLab(loadScenario());
    database = await createTestDatabase();
    gateway = await startGatewayProcess(gatewayEnv(), workDir());
    if (distributed)
      workers = await Promise.all(WORKER_KINDS.map((kind) => startWorkerProcess(kind, gatewayEnv(), workDir())));
    api = apiClient(gateway.url);
  });

  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.stop()));
    await gateway?.stop();
    await database?.drop();
    await lab?.stop();
    if (distributed) await flushRedisPrefix(suitePrefix);
  });

  describe('POST /v1/accounts (sign-up)', () => {
    it('creates an account with its first full key and webhook secret, each shown once', async () => {
      const response = await api<Signup>('POST', '/v1/accounts', {
        body: { email: 'Founder@catchall.test', name: 'Founder' },
      });
      expect(response.status).toBe(201);
      expect(response.body.account).toEqual({
        id: expect.stringMatching(/^acc_/),
        email: 'Founder@catchall.test',
        credits: 2500,
      });
      expect(response.body.apiKey).toMatch(/^mg_live_[A-Za-z0-9]{32}$/);
      expect(response.body.webhookSecret).toEqual(expect.any(String));
      const keys = await api<{ data: Array<Record<string, unknown>> }>('GET', '/v1/keys', {
        key: response.body.apiKey,
      });
      expect(keys.body.data).toHaveLength(1);
      const [record] = keys.body.data;
      expect(record).toMatchObject({
        id: expect.stringMatching(/^key_/),
        name: expect.any(String),
        prefix: response.body.apiKey.slice(0, 12),
        scope: 'full',
        type: 'secret',
        createdAt: expect.any(String),
        revokedAt: null,
      });
      expect(Object.keys(record).sort()).toEqual([
        'createdAt',
        'id',
        'lastUsedAt',
        'name',
        'prefix',
        'revokedAt',
        'scope',
        'type',
      ]);
      const [stored] = await database.query<{ key_hash: string }>(
        'SELECT key_hash FROM api_keys WHERE account_id = $1',
        [response.body.account.id],
      );
      expect(stored.key_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(JSON.stringify(await database.query('SELECT * FROM api_keys'))).not.toContain(response.body.apiKey);
    });

    it('grants 1,000 credits for a free-provider address and 2,500 for a work address, as ledger grants', async () => {
      const free = await api<Signup>('POST', '/v1/accounts', { body: { email: 'real.person@gmail.com' } });
      expect(free.status).toBe(201);
      expect(free.body.account.credits).toBe(1000);
      const work = await api<Signup>('POST', '/v1/accounts', { body: { email: 'jane@acme.test' } });
      expect(work.body.account.credits).toBe(2500);
      const rows = await database.query<{ kind: string; delta: number }>(
        'SELECT kind, delta FROM credit_transactions WHERE account_id = $1 ORDER BY id',
        [work.body.account.id],
      );
      expect(rows.every((row) => row.kind === 'grant')).toBe(true);
      expect(rows.reduce((sum, row) => sum + row.delta, 0)).toBe(2500);
    });

    it.each([
      ['a disposable address', { email: 'temp@mailinator.com' }, 400],
      ['an invalid address', { email: 'not an address' }, 400],
      ['an address whose mailbox does not exist', { email: 'nobody@acme.test' }, 400],
      ['a domain without mail', { email: 'someone@nullmx.test' }, 400],
      ['no email', { name: 'x' }, 400],
      ['an email that is not a string', { email: 42 }, 400],
    ])('refuses %s with 400 { error }', async (_name, body, status) => {
      const response = await api('POST', '/v1/accounts', { body });
      expect(response.status).toBe(status);
      expect(response.body.error).toEqual(expect.any(String));
    });

    it('answers 409 for an email that already has an account, whatever its case', async () => {
      await api('POST', '/v1/accounts', { body: { email: 'twice@catchall.test' } });
      const again = await api('POST', '/v1/accounts', { body: { email: 'TWICE@CatchAll.test' } });
      expect(again.status).toBe(409);
      expect(again.body.error).toEqual(expect.any(String));
    });

    it('answers 400 to malformed JSON', async () => {
      const response = await api('POST', '/v1/accounts', { body: '{"email":' });
      expect(response.status).toBe(400);
      expect(response.body.error).toMatch(/JSON/);
    });
  });

  describe('authentication', () => {
    it('answers 401 for a missing, unknown, malformed or revoked key', async () => {
      const { apiKey } = await signup();
      expect((await api('GET', '/v1/credits')).status).toBe(401);
      expect((await api('GET', '/v1/credits', { key: `mg_live_${'x'.repeat(32)}` })).status).toBe(401);
      expect((await api('GET', '/v1/credits', { key: 'hello' })).status).toBe(401);
      const spare = await createKey(apiKey, 'full');
      expect((await api('GET', '/v1/credits', { key: spare.key })).status).toBe(200);
      expect((await api('DELETE', `/v1/keys/${spare.id}`, { key: apiKey })).status).toBe(204);
      const revoked = await api('GET', '/v1/credits', { key: spare.key });
      expect(revoked.status).toBe(401);
      expect(revoked.body).toEqual({ error: 'Invalid or revoked API key', code: 'unauthorized' });
    });

    it('throttles key guessing per client address: 429 with Retry-After past 20 unknown keys, valid keys unaffected', async () => {
      const { apiKey } = await signup();
      const guesser = { 'X-Forwarded-For': '203.0.113.77' };
      const guess = () => `mg_live_${randomBytes(24).toString('base64url').replace(/[-_]/g, 'x').slice(0, 32)}`;
      for (let i = 0; i < 20; i++)
        expect((await api('GET', '/v1/credits', { key: guess(), headers: guesser })).status).toBe(401);
      const throttled = await api('GET', '/v1/credits', { key: guess(), headers: guesser });
      expect(throttled.status).toBe(429);
      expect(throttled.body).toEqual({ error: expect.stringContaining('unknown API keys'), code: 'rate_limited' });
      expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
      // Unknown widget keys count too, on the widget's own endpoint.
      expect(
        (
          await api('POST', '/v1/widget/verify', {
            key: `mg_widget_${'y'.repeat(32)}`,
            headers: guesser,
            body: { email: 'jane@acme.test' },
          })
        ).status,
      ).toBe(429);
      // A valid key from the same address, and unknown keys from another, are answered as ever.
      expect((await api('GET', '/v1/credits', { key: apiKey, headers: guesser })).status).toBe(200);
      expect(
        (await api('GET', '/v1/credits', { key: guess(), headers: { 'X-Forwarded-For': '203.0.113.78' } })).status,
      ).toBe(401);
    });

    it('refuses widget keys everywhere but the widget (403)', async () => {
      const { apiKey } = await signup();
      const widget = await createKey(apiKey, 'verify', 'widget');
      expect(widget.key).toMatch(/^mg_widget_[A-Za-z0-9]{32}$/);
      for (const [method, path] of [
        ['GET', '/v1/credits'],
        ['GET', '/v1/email-validation/jane@acme.test'],
        ['GET', '/v1/keys'],
      ]) {
        expect((await api(method, path, { key: widget.key })).status).toBe(403);
      }
    });

    it('answers 404 for unknown paths, with or without a key, and still meters a valid key', async () => {
      const { apiKey } = await signup();
      const anonymous = await api('GET', '/v1/nothing');
      expect(anonymous.status).toBe(404);
      expect(anonymous.headers.get('ratelimit-limit')).toBeNull();
      for (const path of ['/v1/nothing', '/nothing']) {
        const keyed = await api('GET', path, { key: apiKey });
        expect(keyed.status).toBe(404);
        expect(keyed.body).toEqual({ error: `No route for GET ${path}`, code: 'not_found' });
        expect(keyed.headers.get('ratelimit-limit')).toBe('60');
        expect(keyed.headers.get('x-credits-remaining')).toBe('2500');
      }
    });
  });

  describe('scopes (docs/api.md#authentication and §4)', () => {
    const ROUTES: Array<[string, string, string[], unknown?]> = [
      ['GET', '/v1/email-validation/jane@acme.test', ['full', 'verify']],
      ['POST', '/v1/email-validation/batch', ['full', 'verify'], { emails: ['jane@acme.test'] }],
      ['GET', '/v1/keys', ['full', 'read-only']],
      ['POST', '/v1/keys', ['full'], { name: 'k', scope: 'verify' }],
      ['PATCH', '/v1/keys/key_000000000000000000000000', ['full'], { name: 'renamed' }],
      ['DELETE', '/v1/keys/key_000000000000000000000000', ['full']],
      ['GET', '/v1/credits', ['full', 'verify', 'lists', 'read-only']],
      ['GET', '/v1/credits/usage', ['full', 'verify', 'lists', 'read-only']],
      ['GET', '/v1/credits/transactions', ['full', 'verify', 'lists', 'read-only']],
    ];
    const keys: Record<string, string> = {};

    beforeAll(async () => {
      const { apiKey } = await signup();
      for (const scope of ['full', 'verify', 'lists', 'read-only']) keys[scope] = (await createKey(apiKey, scope)).key;
    });

    const cases = ROUTES.flatMap(([method, path, allowed, body]) =>
      ['full', 'verify', 'lists', 'read-only'].map(
        (scope) => [method, path, scope, allowed.includes(scope), body] as const,
      ),
    );

    it.each(cases)('%s %s with a %s key → allowed: %s', async (method, path, scope, allowed, body) => {
      const response = await api(method, path, { key: keys[scope], body });
      if (allowed) expect(response.status).not.toBe(403);
      else {
        expect(response.status).toBe(403);
        expect(response.body.error).toMatch(/scope/);
      }
      expect(response.status).toBeLessThan(500);
    });
  });

  describe('checks (#1, #2)', () => {
    it('verifies one address, charges one credit and says the balance after', async () => {
      const { apiKey, account } = await signup();
      const response = await api('GET', '/v1/email-validation/jane@acme.test', { key: apiKey });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        email: 'jane@acme.test',
        status: 'valid',
        reason: 'accepted_email',
        reachable: 'safe',
      });
      expect(response.headers.get('x-credits-remaining')).toBe('2499');
      expect(await ledgerSum(account.id)).toBe(2499);
      const [stored] = await database.query<{ email: string; kind: string; credits: number }>(
        'SELECT email, kind, credits FROM verifications WHERE account_id = $1',
        [account.id],
      );
      expect(stored).toEqual({ email: 'jane@acme.test', kind: 'single', credits: 1 });
    });

    it('serves a repeat from the cache, marked cached and still charged', async () => {
      const { apiKey } = await signup();
      const address = `cache.${randomBytes(4).toString('hex')}@catchall.test`;
      const first = await api('GET', `/v1/email-validation/${address}`, { key: apiKey });
      expect(first.body.cached).toBe(false);
      const again = await api('GET', `/v1/email-validation/${address.toUpperCase()}`, { key: apiKey });
      expect(again.body.cached).toBe(true);
      expect(again.headers.get('x-credits-remaining')).toBe('2498');
    });

    it('refunds results whose reachable is unknown, as their own ledger rows', async () => {
      const { apiKey, account } = await signup();
      const response = await api('GET', '/v1/email-validation/bob@blocked.test', { key: apiKey });
      expect(response.body).toMatchObject({ reachable: 'unknown' });
      expect(response.headers.get('x-credits-remaining')).toBe('2500');
      const rows = await database.query<{ kind: string; delta: number }>(
        "SELECT kind, delta FROM credit_transactions WHERE account_id = $1 AND kind <> 'grant' ORDER BY id",
        [account.id],
      );
      expect(rows).toEqual([
        { kind: 'charge', delta: -1 },
        { kind: 'refund', delta: 1 },
      ]);
    });

    it('charges syntax failures, answers 200 for any segment up to 1,024 characters and 400 beyond', async () => {
      const { apiKey } = await signup();
      const bad = await api('GET', `/v1/email-validation/${encodeURIComponent('not..valid@@x')}`, { key: apiKey });
      expect(bad.status).toBe(200);
      expect(bad.body).toMatchObject({ status: 'invalid', reason: 'invalid_syntax' });
      expect(bad.headers.get('x-credits-remaining')).toBe('2499');
      const long = await api('GET', `/v1/email-validation/${'a'.repeat(1025)}`, { key: apiKey });
      expect(long.status).toBe(400);
      const edge = await api('GET', `/v1/email-validation/${'a'.repeat(1024)}`, { key: apiKey });
      expect(edge.status).toBe(200);
    });

    it('decodes the path segment: / and % work when encoded, and CR/LF are only ever invalid_syntax', async () => {
      const { apiKey } = await signup();
      const slash = await api('GET', `/v1/email-validation/${encodeURIComponent('a/b@acme.test')}`, { key: apiKey });
      expect(slash.status).toBe(200);
      expect(slash.body.email).toBe('a/b@acme.test');
      const percent = await api('GET', `/v1/email-validation/${encodeURIComponent('100%@acme.test')}`, { key: apiKey });
      expect(percent.body.email).toBe('100%@acme.test');
      lab.resetStats();
      const injected = await api(
        'GET',
        `/v1/email-validation/${encodeURIComponent('jane@acme.test\r\nRCPT TO:<x@acme.test>')}`,
        { key: apiKey },
      );
      expect(injected.body.reason).toBe('invalid_syntax');
      expect(lab.stats('mx1.acme.test').commands.join('\n')).not.toContain('x@acme.test');
    });

    it('verifies a batch in input order, checking and charging duplicates once', async () => {
      const { apiKey, account } = await signup();
      const emails = ['nobody@acme.test', 'jane@acme.test', 'JANE@acme.test', 'not-an-address', 'nobody@acme.test'];
      const response = await api<{ results: Array<{ email: string; reason: string }> }>(
        'POST',
        '/v1/email-validation/batch',
        { key: apiKey, body: { emails } },
      );
      expect(response.status).toBe(200);
      expect(response.body.results.map((result) => result.reason)).toEqual([
        'rejected_email',
        'accepted_email',
        'accepted_email',
        'invalid_syntax',
        'rejected_email',
      ]);
      expect(response.headers.get('x-credits-remaining')).toBe('2497');
      expect(await ledgerSum(account.id)).toBe(2497);
    });

    it('answers a batch within one deadline: what SMTP could not settle by then is unknown and refunded', async () => {
      // A gateway of its own with a short deadline; with BullMQ the suite's workers serve it (the
      // deadline travels in each job). The tarpit's banner comes after 60 s: its addresses never settle.
      const deadlineMs = 3_000;
      const quick = await startGatewayProcess(gatewayEnv({ CHECK_DEADLINE_MS: String(deadlineMs) }), workDir());
      try {
        const { apiKey, account } = await signup();
        const emails = ['jane@acme.test', ...Array.from({ length: 99 }, (_, n) => `user${n}@tarpit.test`)];
        const asked = Date.now();
        const response = await apiClient(quick.url)<{
          results: Array<{ email: string; status: string; reachable: string; subStatus: string | null }>;
        }>('POST', '/v1/email-validation/batch', { key: apiKey, body: { emails } });
        const waited = Date.now() - asked;
        expect(response.status).toBe(200);
        expect(response.body.results.map((result) => result.email)).toEqual(emails);
        expect(response.body.results[0]).toMatchObject({ status: 'valid', reachable: 'safe' });
        expect(response.body.results.slice(1).every((result) => result.reachable === 'unknown')).toBe(true);
        // The deadline cut them short, and the answers say so (docs/api.md#substatus).
        expect(new Set(response.body.results.slice(1).map((result) => result.subStatus))).toEqual(new Set(['timeout']));
        // Generous: one deadline each for rounds of 20 addresses took five.
        expect(waited).toBeLessThan(2 * deadlineMs);
        expect(response.headers.get('x-credits-remaining')).toBe('2499');
        const rows = await database.query<{ kind: string; delta: number }>(
          "SELECT kind, delta FROM credit_transactions WHERE account_id = $1 AND kind <> 'grant' ORDER BY id",
          [account.id],
        );
        expect(rows).toEqual([
          { kind: 'charge', delta: -100 },
          { kind: 'refund', delta: 99 },
        ]);
        const [usage] = await database.query<{ checks: string; paid: string }>(
          'SELECT count(*) AS checks, sum(credits) AS paid FROM verifications WHERE account_id = $1',
          [account.id],
        );
        expect(usage).toEqual({ checks: '100', paid: '1' });
      } finally {
        await quick.stop();
      }
    });

    it.each([
      ['more than 100 addresses', { emails: Array.from({ length: 101 }, (_, i) => `u${i}@acme.test`) }],
      ['no addresses', { emails: [] }],
      ['a string instead of a list', { emails: 'jane@acme.test' }],
      ['a list with a number', { emails: ['jane@acme.test', 7] }],
      ['no body', undefined],
    ])('answers 400 to a batch with %s, charging nothing', async (_name, body) => {
      const { apiKey, account } = await signup();
      const response = await api('POST', '/v1/email-validation/batch', { key: apiKey, body });
      expect(response.status).toBe(400);
      expect(response.body.error).toEqual(expect.any(String));
      expect(await ledgerSum(account.id)).toBe(2500);
    });
  });

  describe('credits (§3, #20–22)', () => {
    it('answers 402 and charges nothing when the balance is short', async () => {
      const { apiKey, account } = await signup();
      await database.setBalance(account.id, 1);
      const batch = await api('POST', '/v1/email-validation/batch', {
        key: apiKey,
        body: { emails: ['jane@acme.test', 'info@acme.test'] },
      });
      expect(batch.status).toBe(402);
      expect(batch.body).toMatchObject({ error: expect.stringMatching(/credits/i), code: 'insufficient_credits' });
      expect(batch.headers.get('x-credits-remaining')).toBe('1');
      expect((await api('GET', '/v1/email-validation/jane@acme.test', { key: apiKey })).status).toBe(200);
      const empty = await api('GET', '/v1/email-validation/jane@acme.test', { key: apiKey });
      expect(empty.status).toBe(402);
      expect(empty.headers.get('x-credits-remaining')).toBe('0');
    });

    it('never overdraws or double-charges: 100 parallel checks on a balance of 10', async () => {
      const { apiKey, account } = await signup();
      // Two keys, so the per-key rate limit does not decide this test.
      const second = await createKey(apiKey, 'verify');
      await database.setBalance(account.id, 10);
      const responses = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          api('GET', `/v1/email-validation/${i % 2 ? 'jane' : 'info'}@acme.test`, {
            key: i < 50 ? apiKey : second.key,
          }),
        ),
      );
      const statuses = responses.map((response) => response.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(10);
      expect(statuses.filter((status) => status === 402)).toHaveLength(90);
      const credits = await api<{ balance: number; held: number; currency: string }>('GET', '/v1/credits', {
        key: apiKey,
      });
      expect(credits.body).toEqual({ balance: 0, held: 0, currency: 'credits' });
      expect(await ledgerSum(account.id)).toBe(0);
      const [charges] = await database.query<{ count: string }>(
        "SELECT count(*) FROM credit_transactions WHERE account_id = $1 AND kind = 'charge' AND ref IS NOT NULL",
        [account.id],
      );
      expect(Number(charges.count)).toBe(10);
    });

    it('pages the ledger newest first, with balanceAfter on every row, limit capped at 100', async () => {
      const { apiKey } = await signup();
      await api('GET', '/v1/email-validation/jane@acme.test', { key: apiKey });
      const page = await api<{ data: Array<Record<string, unknown>>; page: number; limit: number; total: number }>(
        'GET',
        '/v1/credits/transactions?limit=1',
        { key: apiKey },
      );
      expect(page.body).toMatchObject({ page: 1, limit: 1, total: 3 });
      expect(page.body.data[0]).toMatchObject({
        id: expect.any(String),
        delta: -1,
        reason: 'single check',
        ref: expect.any(String),
        createdAt: expect.any(String),
        balanceAfter: 2499,
      });
      const capped = await api<{ limit: number }>('GET', '/v1/credits/transactions?limit=500', { key: apiKey });
      expect(capped.body.limit).toBe(100);
      expect((await api('GET', '/v1/credits/transactions?page=0', { key: apiKey })).status).toBe(400);
      expect((await api('GET', '/v1/credits/transactions?limit=abc', { key: apiKey })).status).toBe(400);
    });

    it('exports the whole ledger as CSV, oldest first, over many batches, to every scope that reads credits', async () => {
      const { apiKey, account } = await signup();
      // 2,500 more rows than one read of the export takes (1,000), one with a reason a spreadsheet would run.
      await database.query(
        `INSERT INTO credit_transactions (account_id, delta, kind, reason, ref, balance_after)
         SELECT $1, 1, 'grant', CASE WHEN n = 1200 THEN '=HYPERLINK("http://x")' ELSE 'grant ' || n END, NULL, 2500 + n
         FROM generate_series(1, 2500) AS n ORDER BY n`,
        [account.id],
      );
      const readOnly = await createKey(apiKey, 'read-only');
      const exported = await fetch(`${gateway.url}/v1/credits/transactions?format=csv`, {
        headers: { 'X-API-Key': readOnly.key },
      });
      expect(exported.status).toBe(200);
      expect(exported.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect(exported.headers.get('content-disposition')).toBe('attachment; filename="transactions.csv"');
      const lines = (await exported.text()).split('\r\n');
      expect(lines.pop()).toBe('');
      expect(lines[0]).toBe('id,date,kind,delta,balance_after,reason,ref');
      // The header, sign-up's two grants, then ours.
      expect(lines).toHaveLength(1 + 2 + 2_500);
      expect(lines[1]).toMatch(/^txn_\d+,\d{4}-\d\d-\d\dT[\d:.]+Z,grant,1000,1000,signup,$/);
      expect(lines[2]).toMatch(/^txn_\d+,[^,]+,grant,1500,2500,signup bonus: work email,$/);
      expect(lines[3]).toMatch(/^txn_\d+,[^,]+,grant,1,2501,grant 1,$/);
      expect(lines[lines.length - 1]).toMatch(/,grant,1,5000,grant 2500,$/);
      expect(lines[2 + 1200]).toMatch(/,grant,1,3700,"'=HYPERLINK\(""http:\/\/x""\)",$/);
      const ids = lines.slice(1).map((line) => Number(line.split(',')[0].slice(4)));
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      expect(new Set(ids).size).toBe(ids.length);
      expect((await api('GET', '/v1/credits/transactions?format=xml', { key: apiKey })).status).toBe(400);
      const widget = await createKey(apiKey, 'verify', 'widget');
      expect((await api('GET', '/v1/credits/transactions?format=csv', { key: widget.key })).status).toBe(403);
      expect((await fetch(`${gateway.url}/v1/credits/transactions?format=csv`)).status).toBe(401);
    });

    it('reports usage per UTC day and kind, with inclusive dates', async () => {
      const { apiKey } = await signup();
      await api('GET', '/v1/email-validation/jane@acme.test', { key: apiKey });
      await api('GET', '/v1/email-validation/bob@blocked.test', { key: apiKey });
      await api('POST', '/v1/email-validation/batch', {
        key: apiKey,
        body: { emails: ['jane@acme.test', 'nobody@acme.test'] },
      });
      const today = new Date().toISOString().slice(0, 10);
      const usage = await api<{ data: unknown[] }>('GET', `/v1/credits/usage?from=${today}&to=${today}`, {
        key: apiKey,
      });
      expect(usage.status).toBe(200);
      expect(usage.body.data).toEqual([
        { date: today, kind: 'batch', checks: 2, credits: 2 },
        { date: today, kind: 'single', checks: 2, credits: 1 },
      ]);
      expect((await api('GET', '/v1/credits/usage?from=2026-13-01', { key: apiKey })).status).toBe(400);
      expect((await api('GET', '/v1/credits/usage?from=2026-02-30', { key: apiKey })).status).toBe(400);
      expect((await api('GET', `/v1/credits/usage?from=${today}&to=2020-01-01`, { key: apiKey })).status).toBe(400);
    });
  });

  describe('rate limit (§2)', () => {
    it('allows 60 requests a rolling minute per key, then 429 with Retry-After, before any credit is touched', async () => {
      const { apiKey } = await signup();
      const fresh = await createKey(apiKey, 'full');
      let last = 60;
      for (let i = 0; i < 59; i++) {
        const response = await api('GET', '/v1/credits', { key: fresh.key });
        expect(response.status).toBe(200);
        expect(response.headers.get('ratelimit-limit')).toBe('60');
        const remaining = Number(response.headers.get('ratelimit-remaining'));
        expect(remaining).toBe(last - 1);
        last = remaining;
        expect(Number(response.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(0);
      }
      expect((await api('GET', '/v1/email-validation/jane@acme.test', { key: fresh.key })).status).toBe(200);
      const limited = await api('GET', '/v1/email-validation/jane@acme.test', { key: fresh.key });
      expect(limited.status).toBe(429);
      expect(limited.body).toMatchObject({ error: expect.stringMatching(/rate limit/i) });
      expect(limited.headers.get('ratelimit-remaining')).toBe('0');
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(limited.headers.get('x-credits-remaining')).toBe('2499');
      // Another key of the same account has its own window.
      expect((await api('GET', '/v1/credits', { key: apiKey })).status).toBe(200);
    });

    if (distributed)
      it('shares one window across several gateway processes on the same Redis', async () => {
        const { apiKey } = await signup();
        const fresh = await createKey(apiKey, 'read-only');
        const env = gatewayEnv();
        const [one, two] = await Promise.all([
          startGatewayProcess(env, workDir()),
          startGatewayProcess(env, workDir()),
        ]);
        try {
          const calls = [apiClient(one.url), apiClient(two.url)];
          const statuses = [];
          for (let i = 0; i < 61; i++)
            statuses.push((await calls[i % 2]('GET', '/v1/credits', { key: fresh.key })).status);
          expect(statuses.slice(0, 60).every((status) => status === 200)).toBe(true);
          expect(statuses[60]).toBe(429);
        } finally {
          await Promise.all([one.stop(), two.stop()]);
        }
      });

    if (distributed)
      it('a key revoked or re-scoped on one gateway stops working on every gateway at once', async () => {
        const { apiKey } = await signup();
        const [revoked, narrowed] = [await createKey(apiKey, 'full'), await createKey(apiKey, 'full')];
        const env = gatewayEnv();
        const [one, two] = await Promise.all([
          startGatewayProcess(env, workDir()),
          startGatewayProcess(env, workDir()),
        ]);
        try {
          const [first, second] = [apiClient(one.url), apiClient(two.url)];
          // Both gateways have now looked the keys up (and keep them for a few seconds).
          for (const call of [first, second]) {
            expect((await call('GET', '/v1/keys', { key: revoked.key })).status).toBe(200);
            expect((await call('GET', '/v1/keys', { key: narrowed.key })).status).toBe(200);
          }
          expect((await first('DELETE', `/v1/keys/${revoked.id}`, { key: apiKey })).status).toBe(204);
          expect(
            (await first('PATCH', `/v1/keys/${narrowed.id}`, { key: apiKey, body: { scope: 'verify' } })).status,
          ).toBe(200);
          expect((await second('GET', '/v1/keys', { key: revoked.key })).status).toBe(401);
          expect((await second('GET', '/v1/keys', { key: narrowed.key })).status).toBe(403);
        } finally {
          await Promise.all([one.stop(), two.stop()]);
        }
      });

    it('limits sign-ups per client address per hour', async () => {
      // Its own Redis prefix (a count of its own), and a short deadline since no worker serves that prefix.
      const strict = await startGatewayProcess(
        gatewayEnv({ SIGNUP_LIMIT_PER_IP_HOUR: '2', REDIS_PREFIX: `${suitePrefix}strict:`, CHECK_DEADLINE_MS: '1500' }),
        workDir(),
      );
      try {
        const call = apiClient(strict.url);
        const statuses = [];
        for (let i = 0; i < 3; i++)
          statuses.push(
            (
              await call('POST', '/v1/accounts', {
                body: { email: `limited${i}.${randomBytes(3).toString('hex')}@catchall.test` },
              })
            ).status,
          );
        expect(statuses).toEqual([201, 201, 429]);
      } finally {
        await strict.stop();
      }
    });
  });

  describe('feedback (#3)', () => {
    it('stores the report for free (202) and drops the cached result of the address', async () => {
      const { apiKey, account } = await signup();
      expect((await api('GET', '/v1/email-validation/jane@acme.test', { key: apiKey })).status).toBe(200);
      expect(
        (await api<{ cached: boolean }>('GET', '/v1/email-validation/jane@acme.test', { key: apiKey })).body.cached,
      ).toBe(true);
      const before = (await api<{ balance: number }>('GET', '/v1/credits', { key: apiKey })).body.balance;
      const reported = await api('POST', '/v1/email-validation/feedback', {
        key: apiKey,
        body: { email: 'Jane@ACME.test', outcome: 'bounced' },
      });
      expect(reported.status).toBe(202);
      expect(reported.body).toEqual({ accepted: true });
      expect(reported.headers.get('x-credits-remaining')).toBe(String(before));
      const [stored] = await database.query<{ email: string; domain: string; local_part: string; outcome: string }>(
        'SELECT email, domain, local_part, outcome FROM feedback WHERE account_id = $1',
        [account.id],
      );
      expect(stored).toEqual({ email: 'Jane@acme.test', domain: 'acme.test', local_part: 'jane', outcome: 'bounced' });
      expect(
        (await api<{ cached: boolean }>('GET', '/v1/email-validation/jane@acme.test', { key: apiKey })).body.cached,
      ).toBe(false);
    });

    it('400 for a bad outcome, a missing or invalid address; 403 for a read-only key', async () => {
      const { apiKey } = await signup();
      for (const body of [
        { email: 'jane@acme.test', outcome: 'opened' },
        { outcome: 'delivered' },
        { email: 'not an address', outcome: 'delivered' },
        { email: 42, outcome: 'delivered' },
      ]) {
        const response = await api('POST', '/v1/email-validation/feedback', { key: apiKey, body });
        expect(response.status).toBe(400);
        expect(response.body).toEqual({ error: expect.any(String), code: 'bad_request' });
      }
      const reader = await createKey(apiKey, 'read-only');
      expect(
        (
          await api('POST', '/v1/email-validation/feedback', {
            key: reader.key,
            body: { email: 'jane@acme.test', outcome: 'delivered' },
          })
        ).status,
      ).toBe(403);
    });
  });

  describe('finder (#9)', () => {
    type Found = {
      email: string | null;
      confidence: number;
      pattern: string | null;
      result: { email: string; status: string } | null;
      alternatives: Array<{ email: string; confidence: number }>;
    };
    const find = (key: string, query: string) => api<Found>('GET', `/v1/email-finder?${query}`, { key });
    const balance = async (key: string) => (await api<{ balance: number }>('GET', '/v1/credits', { key })).body.balance;

    it('finds the address at a strict domain by asking its server, and charges 1', async () => {
      const { apiKey } = await signup();
      const before = await balance(apiKey);
      const found = await find(apiKey, 'firstName=John&lastName=Doe&domain=acme.test');
      expect(found.status).toBe(200);
      expect(found.body).toMatchObject({
        email: 'john.doe@acme.test',
        pattern: 'first.last',
        result: { email: 'john.doe@acme.test', status: 'valid' },
      });
      expect(found.body.confidence).toBeGreaterThanOrEqual(90);
      expect(found.headers.get('x-credits-remaining')).toBe(String(before - 1));
      // Another pattern at the same server, from a full name; diacritics folded; a URL for the domain.
      expect((await find(apiKey, `fullName=${encodeURIComponent('Jane Austen')}&domain=acme.test`)).body).toMatchObject(
        { email: 'jane@acme.test', pattern: 'first' },
      );
      expect((await find(apiKey, 'firstName=Mary&lastName=Wong&domain=acme.test')).body).toMatchObject({
        email: 'mwong@acme.test',
        pattern: 'flast',
      });
      expect(
        (
          await find(
            apiKey,
            `firstName=${encodeURIComponent('Jóhn')}&lastName=${encodeURIComponent('Dóe')}&domain=${encodeURIComponent('https://www.acme.test/team')}`,
          )
        ).body.email,
      ).toBe('john.doe@acme.test');
      expect(await balance(apiKey)).toBe(before - 4);
    });

    it('answers email: null and charges nothing when nobody is found or the domain takes no mail', async () => {
      const { apiKey } = await signup();
      const before = await balance(apiKey);
      expect((await find(apiKey, 'firstName=Zed&lastName=Quux&domain=acme.test')).body).toMatchObject({
        email: null,
        result: null,
        alternatives: [],
      });
      expect((await find(apiKey, 'firstName=Zed&lastName=Quux&domain=nomail.test')).body.email).toBeNull();
      expect(await balance(apiKey)).toBe(before);
    });

    it('names the likeliest address at a catch-all domain with the confidence a check of it gives, and alternatives', async () => {
      const { apiKey } = await signup();
      const found = await find(
        apiKey,
        `firstName=Mar%C3%ADa&lastName=${encodeURIComponent('García-Márquez')}&domain=catchall.test`,
      );
      expect(found.body).toMatchObject({ email: 'maria.garciamarquez@catchall.test', pattern: 'first.last' });
      expect(found.body.alternatives).toHaveLength(3);
      // Ranked by confidence; an equal one keeps the pattern order (first.last, the most used, first).
      expect(found.body.alternatives[0].confidence).toBeLessThanOrEqual(found.body.confidence);
      // One confidence per address, whichever surface asks.
      for (const { email, confidence } of [
        found.body as { email: string; confidence: number },
        ...found.body.alternatives,
      ]) {
        const checked = await api<{ confidence: number }>('GET', `/v1/email-validation/${email}`, { key: apiKey });
        expect({ email, confidence: checked.body.confidence }).toEqual({ email, confidence });
      }
    });

    it('400 without a name or a domain; 403 for a read-only key', async () => {
      const { apiKey } = await signup();
      for (const query of [
        'domain=acme.test',
        'firstName=John&domain=acme.test',
        'firstName=John&lastName=Doe',
        'firstName=John&lastName=Doe&domain=not%20a%20domain',
        'fullName=Cher&domain=acme.test',
      ]) {
        const response = await find(apiKey, query);
        expect(response.status).toBe(400);
        expect(response.body).toMatchObject({ error: expect.any(String), code: 'bad_request' });
      }
      const reader = await createKey(apiKey, 'read-only');
      expect((await find(reader.key, 'firstName=John&lastName=Doe&domain=acme.test')).status).toBe(403);
    });
  });

  describe('domain insight (#10) and what the service learns (#3, #9)', () => {
    type Insight = {
      domain: string;
      catchAll: boolean | null;
      pattern: string | null;
      provider: string | null;
      mx: Array<{ exchange: string; priority: number }>;
      confidence: number;
      addresses: number;
    };
    type Found = { email: string | null; confidence: number; pattern: string | null };
    type Checked = {
      confidence: number | null;
      checks: {
        catchAll: { value: boolean; confidence: number | null; signals?: Array<{ signal: string; weight: number }> };
      };
    };
    const insight = (key: string, domain: string) =>
      api<Insight>('GET', `/v1/email-finder/domain/${encodeURIComponent(domain)}`, { key });
    const check = async (key: string, email: string) =>
      (await api<Checked>('GET', `/v1/email-validation/${encodeURIComponent(email)}`, { key })).body;
    const report = async (key: string, email: string, outcome: 'delivered' | 'bounced') =>
      expect((await api('POST', '/v1/email-validation/feedback', { key, body: { email, outcome } })).status).toBe(202);

    it('describes strict and catch-all domains for free: MX, provider, catch-all and the learned pattern', async () => {
      const { apiKey } = await signup();
      const before = (await api<{ balance: number }>('GET', '/v1/credits', { key: apiKey })).body.balance;
      // A finder hit confirmed by the server teaches acme.test its pattern.
      expect(
        (await api<Found>('GET', '/v1/email-finder?firstName=John&lastName=Doe&domain=acme.test', { key: apiKey })).body
          .pattern,
      ).toBe('first.last');
      const strict = await insight(apiKey, 'https://www.acme.test/about');
      expect(strict.status).toBe(200);
      expect(strict.body).toEqual({
        domain: 'acme.test',
        catchAll: false,
        pattern: 'first.last',
        provider: null,
        mx: [{ exchange: 'mx1.acme.test', priority: 10 }],
        confidence: expect.any(Number),
        addresses: expect.any(Number),
      });
      expect(strict.body.confidence).toBeGreaterThan(0);
      expect(strict.body.addresses).toBeGreaterThanOrEqual(1);
      // A free provider's addresses follow no company's pattern: a verified one teaches nothing.
      expect((await api('GET', '/v1/email-validation/real.person@gmail.com', { key: apiKey })).body.reason).toBe(
        'accepted_email',
      );
      const google = await insight(apiKey, 'gmail.com');
      expect(google.body).toMatchObject({
        domain: 'gmail.com',
        catchAll: false,
        provider: 'google',
        pattern: null,
        addresses: 0,
      });
      const catchAll = await insight(apiKey, 'catchall.test');
      expect(catchAll.body).toMatchObject({
        domain: 'catchall.test',
        catchAll: true,
        mx: [{ exchange: 'mx.catchall.test', priority: 5 }],
      });
      expect((await insight(apiKey, 'nomail.test')).body).toMatchObject({
        domain: 'nomail.test',
        catchAll: null,
        mx: [],
        pattern: null,
        confidence: 0,
      });
      expect((await api<{ balance: number }>('GET', '/v1/credits', { key: apiKey })).body.balance).toBe(before - 2);
    });

    it('answers 400 for what is no domain and 403 outside its scopes', async () => {
      const { apiKey } = await signup();
      for (const bad of ['not a domain', 'localhost', 'x'.repeat(300)]) {
        const response = await insight(apiKey, bad);
        expect(response.status).toBe(400);
        expect(response.body).toMatchObject({ error: expect.any(String) });
      }
      for (const scope of ['read-only', 'lists'])
        expect((await insight((await createKey(apiKey, scope)).key, 'acme.test')).status).toBe(403);
      expect((await insight((await createKey(apiKey, 'verify')).key, 'acme.test')).status).toBe(200);
    });

    it('learns a catch-all domain from feedback: the pattern, the finder guess and the confidence of new addresses follow', async () => {
      const { apiKey } = await signup();
      expect((await insight(apiKey, 'learning.test')).body).toMatchObject({
        catchAll: true,
        pattern: null,
        confidence: 0,
        addresses: 0,
      });
      const guess = await api<Found>('GET', '/v1/email-finder?firstName=Carl&lastName=Miller&domain=learning.test', {
        key: apiKey,
      });
      expect(guess.body).toMatchObject({ email: 'carl.miller@learning.test', pattern: 'first.last' });
      const inPattern = await check(apiKey, 'tgreen@learning.test');
      const offPattern = await check(apiKey, 'tom.green@learning.test');
      expect(inPattern.checks.catchAll.value).toBe(true);
      expect(inPattern.checks.catchAll.signals?.map((signal) => signal.signal)).not.toContain('learned_pattern');

      for (const local of ['jdoe', 'asmith', 'bwayne']) await report(apiKey, `${local}@learning.test`, 'delivered');
      const learned = await insight(apiKey, 'learning.test');
      expect(learned.body).toMatchObject({ catchAll: true, pattern: 'flast', addresses: 3 });
      expect(learned.body.confidence).toBeGreaterThan(50);
      const better = await api<Found>('GET', '/v1/email-finder?firstName=Carl&lastName=Miller&domain=learning.test', {
        key: apiKey,
      });
      expect(better.body).toMatchObject({ email: 'cmiller@learning.test', pattern: 'flast' });
      expect(better.body.confidence).toBeGreaterThan(guess.body.confidence);

      const newInPattern = await check(apiKey, 'pbrown@learning.test');
      expect(newInPattern.confidence).toBeGreaterThan(inPattern.confidence as number);
      expect(newInPattern.checks.catchAll.signals).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ signal: 'pattern_delivery_rate', weight: expect.any(Number) }),
        ]),
      );
      const newOffPattern = await check(apiKey, 'peter.brown@learning.test');
      expect(newOffPattern.confidence).toBeLessThan(offPattern.confidence as number);
      expect(newOffPattern.checks.catchAll.signals).toEqual(
        expect.arrayContaining([expect.objectContaining({ signal: 'learned_pattern', weight: expect.any(Number) })]),
      );

      // A bounce about the address itself: its cached answer goes, and the next one follows the report.
      await report(apiKey, 'tgreen@learning.test', 'bounced');
      const bounced = await check(apiKey, 'tgreen@learning.test');
      expect(bounced.confidence).toBeLessThan(20);
      expect(bounced.checks.catchAll.signals).toEqual(
        expect.arrayContaining([expect.objectContaining({ signal: 'reported_bounced' })]),
      );
    });
  });

  describe('widget (#11–14)', () => {
    let clients = 0;
    /** A distinct client address per test (the gateway trusts one proxy hop: TRUST_PROXY=1). */
    const client = () => ({ 'X-Forwarded-For': `198.51.100.${++clients}` });
    const device = () => `dev-${randomBytes(6).toString('hex')}`;

    it('serves the SDK with CORS, a cross-origin resource policy and an ETag that revalidates', async () => {
      const script = await fetch(`${gateway.url}/v1/widget/widget.js`);
      expect(script.status).toBe(200);
      expect(script.headers.get('content-type')).toMatch(/^application\/javascript/);
      expect(script.headers.get('access-control-allow-origin')).toBe('*');
      expect(script.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
      expect(script.headers.get('cache-control')).toMatch(/public/);
      const body = await script.text();
      expect(body).toContain('Guard');
      const etag = script.headers.get('etag') as string;
      expect(etag).toMatch(/^".+"$/);
      const again = await fetch(`${gateway.url}/v1/widget/widget.js`, { headers: { 'If-None-Match': etag } });
      expect(again.status).toBe(304);
    });

    it('answers the public tier without a key: 4 checks per device per UTC day, then 429 { error }, never charged', async () => {
      const headers = client();
      const deviceId = device();
      for (const email of ['jane@acme.test', 'john.doe@acme.test', 'nobody@acme.test', 'x@catchall.test']) {
        const answer = await api<Record<string, unknown>>('POST', '/v1/widget/verify', {
          headers: { ...headers, Origin: 'https://shop.example' },
          body: { email, deviceId },
        });
        expect(answer.status).toBe(200);
        expect(answer.body).toMatchObject({ email, status: expect.any(String), reason: expect.any(String) });
        expect(answer.headers.get('access-control-allow-origin')).toBe('*');
        expect(answer.headers.get('x-guard-token')).toBeNull();
      }
      const fifth = await api('POST', '/v1/widget/verify', { headers, body: { email: 'jane@acme.test', deviceId } });
      expect(fifth.status).toBe(429);
      expect(fifth.body).toEqual({ error: expect.stringContaining('4 checks per device'), code: 'rate_limited' });
      expect(fifth.headers.get('access-control-allow-origin')).toBe('*');
      // Another device on the same address has its own four.
      expect(
        (await api('POST', '/v1/widget/verify', { headers, body: { email: 'jane@acme.test', deviceId: device() } }))
          .status,
      ).toBe(200);
    });

    it('caps one client IP at 20 public checks a day, whatever device ids it sends', async () => {
      const headers = client();
      for (let i = 0; i < 20; i++) {
        expect(
          (await api('POST', '/v1/widget/verify', { headers, body: { email: 'jane@acme.test', deviceId: device() } }))
            .status,
        ).toBe(200);
      }
      const refused = await api('POST', '/v1/widget/verify', {
        headers,
        body: { email: 'jane@acme.test', deviceId: device() },
      });
      expect(refused.status).toBe(429);
      // The IP's cap is what was hit (the device is new): the answer names it.
      expect(refused.body.error).toContain('20 checks per IP address');
    });

    it('answers 400 { error } to a missing email, a bad deviceId, or no deviceId without a key', async () => {
      for (const body of [
        { deviceId: device() },
        { email: 'jane@acme.test', deviceId: 'short' },
        { email: 'jane@acme.test' },
        { email: 42, deviceId: device() },
      ]) {
        const answer = await api('POST', '/v1/widget/verify', { headers: client(), body });
        expect(answer.status).toBe(400);
        expect(answer.body.error).toEqual(expect.any(String));
      }
    });

    it('charges a widget key 1 credit per check and signs the verdict with the webhook secret (guard_token)', async () => {
      const { apiKey, account, webhookSecret } = await signup();
      const widget = await createKey(apiKey, 'verify', 'widget');
      const answer = await api<Record<string, unknown>>('POST', '/v1/widget/verify', {
        key: widget.key,
        headers: { ...client(), Origin: 'https://shop.example' },
        body: { email: 'john.doe@acme.test' },
      });
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ email: 'john.doe@acme.test', status: 'valid', reason: 'accepted_email' });
      expect(answer.headers.get('access-control-allow-origin')).toBe('https://shop.example');
      expect(answer.headers.get('access-control-expose-headers')).toMatch(/X-Guard-Token/);
      const claims = verifyGuardToken(answer.headers.get('x-guard-token') as string, webhookSecret);
      expect(claims).toMatchObject({
        email: 'john.doe@acme.test',
        status: 'valid',
        reason: 'accepted_email',
        disposable: false,
        free: false,
        role: false,
        catchAll: false,
        iat: expect.any(Number),
      });
      expect(verifyGuardToken(answer.headers.get('x-guard-token') as string, 'another secret')).toBeNull();
      const defaults = JSON.parse(
        Buffer.from(answer.headers.get('x-guard-settings') as string, 'base64url').toString('utf8'),
      );
      expect(defaults).toEqual({ blockDisposable: true, blockFree: false, lang: 'en', messages: {} });
      expect((await api<{ balance: number }>('GET', '/v1/credits', { key: apiKey })).body.balance).toBe(
        account.credits - 1,
      );
      const usage = await api<{ data: Array<{ kind: string; checks: number; credits: number }> }>(
        'GET',
        '/v1/credits/usage',
        { key: apiKey },
      );
      expect(usage.body.data).toEqual([expect.objectContaining({ kind: 'widget', checks: 1, credits: 1 })]);
    });

    it('answers 402 to a widget key whose account has no credits left', async () => {
      const { apiKey, account } = await signup();
      const widget = await createKey(apiKey, 'verify', 'widget');
      await database.setBalance(account.id, 0);
      const answer = await api('POST', '/v1/widget/verify', {
        key: widget.key,
        headers: client(),
        body: { email: 'jane@acme.test' },
      });
      expect(answer.status).toBe(402);
    });

    it('refuses a widget key outside its allowed origins (403), a secret key (403) and an unknown key (401)', async () => {
      const { apiKey } = await signup();
      const widget = await createKey(apiKey, 'verify', 'widget');
      const put = await api('PUT', '/v1/widget/settings', {
        key: apiKey,
        body: { allowedOrigins: ['https://Shop.Example/'] },
      });
      expect(put.status).toBe(200);
      expect(put.body.allowedOrigins).toEqual(['https://shop.example']);
      const allowed = await api('POST', '/v1/widget/verify', {
        key: widget.key,
        headers: { ...client(), Origin: 'https://shop.example' },
        body: { email: 'jane@acme.test' },
      });
      expect(allowed.status).toBe(200);
      for (const headers of [{ Origin: 'https://evil.example' }, {}] as Array<Record<string, string>>) {
        const refused = await api('POST', '/v1/widget/verify', {
          key: widget.key,
          headers: { ...client(), ...headers },
          body: { email: 'jane@acme.test' },
        });
        expect(refused.status).toBe(403);
        expect(refused.body.error).toEqual(expect.any(String));
        expect(refused.headers.get('access-control-allow-origin')).toBeNull();
      }
      expect(
        (await api('POST', '/v1/widget/verify', { key: apiKey, headers: client(), body: { email: 'jane@acme.test' } }))
          .status,
      ).toBe(403);
      expect(
        (
          await api('POST', '/v1/widget/verify', {
            key: 'mg_widget_00000000000000000000000000000000',
            headers: client(),
            body: { email: 'jane@acme.test' },
          })
        ).status,
      ).toBe(401);
      expect((await api('GET', '/v1/widget/settings', { key: widget.key })).status).toBe(403);
    });

    it('answers CORS preflight for Content-Type and X-API-Key', async () => {
      const preflight = await fetch(`${gateway.url}/v1/widget/verify`, {
        method: 'OPTIONS',
        headers: {
          Origin: 'https://shop.example',
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'content-type,x-api-key',
        },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe('https://shop.example');
      expect(preflight.headers.get('access-control-allow-headers')).toMatch(/X-API-Key/i);
      expect(preflight.headers.get('access-control-allow-methods')).toMatch(/POST/);
    });

    it('reads and writes the settings with their scopes; bad values are 400 and change nothing', async () => {
      const { apiKey } = await signup();
      const initial = await api('GET', '/v1/widget/settings', { key: apiKey });
      expect(initial.status).toBe(200);
      expect(initial.body).toEqual({
        allowedOrigins: [],
        defaults: { blockDisposable: true, blockFree: false, lang: 'en', messages: {} },
      });
      const written = await api('PUT', '/v1/widget/settings', {
        key: apiKey,
        body: { defaults: { blockFree: true, lang: 'it', messages: { free: 'Solo email aziendali' } } },
      });
      expect(written.status).toBe(200);
      expect(written.body).toEqual({
        allowedOrigins: [],
        defaults: { blockDisposable: true, blockFree: true, lang: 'it', messages: { free: 'Solo email aziendali' } },
      });
      expect((await api('GET', '/v1/widget/settings', { key: apiKey })).body).toEqual(written.body);
      for (const body of [
        { allowedOrigins: 'https://shop.example' },
        { allowedOrigins: ['ftp://shop.example'] },
        { allowedOrigins: ['https://shop.example/path'] },
        { defaults: { lang: 'pt' } },
        { defaults: { blockFree: 'yes' } },
        { defaults: { messages: { greeting: 'hi' } } },
        { defaults: { colour: 'red' } },
      ]) {
        const refused = await api('PUT', '/v1/widget/settings', { key: apiKey, body });
        expect(refused.status).toBe(400);
        expect(refused.body.error).toEqual(expect.any(String));
      }
      expect((await api('GET', '/v1/widget/settings', { key: apiKey })).body).toEqual(written.body);
      const readOnly = await createKey(apiKey, 'read-only');
      expect((await api('GET', '/v1/widget/settings', { key: readOnly.key })).status).toBe(200);
      expect((await api('PUT', '/v1/widget/settings', { key: readOnly.key, body: {} })).status).toBe(403);
      const verify = await createKey(apiKey, 'verify');
      expect((await api('GET', '/v1/widget/settings', { key: verify.key })).status).toBe(403);
      expect((await api('GET', '/v1/widget/settings')).status).toBe(401);
    });

    it('sends the account defaults with keyed answers', async () => {
      const { apiKey } = await signup();
      const widget = await createKey(apiKey, 'verify', 'widget');
      await api('PUT', '/v1/widget/settings', {
        key: apiKey,
        body: { defaults: { lang: 'de', messages: { invalid: 'Ungültig – bitte prüfen' } } },
      });
      const answer = await api('POST', '/v1/widget/verify', {
        key: widget.key,
        headers: client(),
        body: { email: 'jane@acme.test' },
      });
      const defaults = JSON.parse(
        Buffer.from(answer.headers.get('x-guard-settings') as string, 'base64url').toString('utf8'),
      );
      expect(defaults).toEqual({
        blockDisposable: true,
        blockFree: false,
        lang: 'de',
        messages: { invalid: 'Ungültig – bitte prüfen' },
      });
    });

    it('serves the demo page', async () => {
      const page = await fetch(`${gateway.url}/widget/demo/`);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain('widget/widget.js');
      expect((await fetch(`${gateway.url}/widget/demo/demo.js`)).status).toBe(200);
    });
  });

  describe('keys (#16–19)', () => {
    it('creates, lists, renames, re-scopes and revokes keys; the full key is shown only at creation', async () => {
      const { apiKey } = await signup();
      const created = await api<Record<string, unknown>>('POST', '/v1/keys', {
        key: apiKey,
        body: { name: 'CI', scope: 'read-only' },
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        id: expect.stringMatching(/^key_/),
        name: 'CI',
        scope: 'read-only',
        type: 'secret',
        key: expect.stringMatching(/^mg_live_/),
        revokedAt: null,
      });
      const listed = await api<{ data: Array<Record<string, unknown>> }>('GET', '/v1/keys', { key: apiKey });
      expect(listed.body.data).toHaveLength(2);
      expect(listed.body.data.every((record) => !('key' in record))).toBe(true);
      const renamed = await api('PATCH', `/v1/keys/${created.body.id}`, {
        key: apiKey,
        body: { name: 'CI runner', scope: 'verify' },
      });
      expect(renamed.body).toMatchObject({ name: 'CI runner', scope: 'verify' });
      expect(
        (await api('PATCH', `/v1/keys/${created.body.id}`, { key: apiKey, body: { scope: 'admin' } })).status,
      ).toBe(400);
      expect((await api('POST', '/v1/keys', { key: apiKey, body: { name: 'x', scope: 'everything' } })).status).toBe(
        400,
      );
      expect((await api('POST', '/v1/keys', { key: apiKey, body: { scope: 'full' } })).status).toBe(400);
      await api('GET', '/v1/credits', { key: created.body.key as string });
      const used = await api<{ data: Array<{ id: string; lastUsedAt: string | null }> }>('GET', '/v1/keys', {
        key: apiKey,
      });
      expect(used.body.data.find((record) => record.id === created.body.id)?.lastUsedAt).toEqual(expect.any(String));
      expect((await api('DELETE', `/v1/keys/${created.body.id}`, { key: apiKey })).status).toBe(204);
      expect((await api('GET', '/v1/credits', { key: created.body.key as string })).status).toBe(401);
    });

    it('answers 404 for a malformed key id', async () => {
      const { apiKey } = await signup();
      expect((await api('PATCH', '/v1/keys/../../etc', { key: apiKey, body: { name: 'x' } })).status).toBe(404);
      expect((await api('DELETE', '/v1/keys/123', { key: apiKey })).status).toBe(404);
    });
  });

  describe('cross-account isolation', () => {
    it("cannot read, change or revoke another account's keys, nor see its ledger", async () => {
      const alice = await signup();
      const bob = await signup();
      const aliceKey = await createKey(alice.apiKey, 'verify');
      expect((await api('PATCH', `/v1/keys/${aliceKey.id}`, { key: bob.apiKey, body: { name: 'mine' } })).status).toBe(
        404,
      );
      expect((await api('DELETE', `/v1/keys/${aliceKey.id}`, { key: bob.apiKey })).status).toBe(404);
      const bobKeys = await api<{ data: Array<{ id: string }> }>('GET', '/v1/keys', { key: bob.apiKey });
      expect(bobKeys.body.data.map((record) => record.id)).not.toContain(aliceKey.id);
      await api('GET', '/v1/email-validation/jane@acme.test', { key: alice.apiKey });
      const bobLedger = await api<{ data: Array<{ reason: string }>; total: number }>(
        'GET',
        '/v1/credits/transactions',
        { key: bob.apiKey },
      );
      expect(bobLedger.body.total).toBe(2);
      expect((await api('GET', '/v1/credits', { key: aliceKey.key })).status).toBe(200);
    });
  });

  describe('OpenAPI', () => {
    it('describes all 22 endpoints at /docs-json and serves the UI at /docs', async () => {
      const document = await api<{ openapi: string; paths: Record<string, Record<string, unknown>> }>(
        'GET',
        '/docs-json',
      );
      expect(document.status).toBe(200);
      expect(document.body.openapi).toMatch(/^3\./);
      const operations = Object.values(document.body.paths).flatMap((methods) => Object.keys(methods));
      expect(operations).toHaveLength(22);
      const page = await fetch(`${gateway.url}/docs`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('swagger-ui-bundle.js');
      expect((await fetch(`${gateway.url}/docs/assets/swagger-ui-bundle.js`)).status).toBe(200);
    });
  });

  describe('metrics', () => {
    it('exposes Prometheus text on the gateway (and on each worker) with requests by route, credits and cache', async () => {
      const { apiKey } = await signup();
      await api('GET', '/v1/email-validation/jane@acme.test', { key: apiKey });
      const text = await (await fetch(gateway.metrics)).text();
      expect(text).toMatch(
        /mailguard_http_requests_total\{[^}]*route="\/v1\/email-validation\/:email"[^}]*status="200"/,
      );
      expect(text).toMatch(/mailguard_credits_total\{[^}]*direction="charged"[^}]*\} [1-9]/);
      expect(text).toMatch(/mailguard_result_cache_requests_total/);
      if (!distributed) return;
      expect(text).toMatch(/mailguard_queue_depth\{[^}]*queue="smtp"/);
      for (const [index, worker] of workers.entries()) {
        expect((await fetch(`${worker.url}/health/live`)).status).toBe(200);
        const metrics = await (await fetch(worker.metrics)).text();
        // The check stages have run jobs by now; the list worker has had no list to feed.
        if (WORKER_KINDS[index] === 'list-worker') expect(metrics).toMatch(/mailguard_jobs_total/);
        else expect(metrics).toMatch(/mailguard_jobs_total\{[^}]*outcome="completed"/);
      }
    });
  });

  describe('Bull Board', () => {
    it(
      distributed ? 'serves the queue board at /admin/queues behind ADMIN_TOKEN' : 'has no queue board without Redis',
      async () => {
        const anonymous = await fetch(`${gateway.url}/admin/queues`);
        if (!distributed) {
          expect(anonymous.status).toBe(404);
          return;
        }
        expect(anonymous.status).toBe(401);
        // The router decodes the path: a percent-encoded letter reaches the same board, and the same lock.
        for (const path of ['/admin/%71ueues', '/admin/%71ueues/api/queues', '/%61dmin/queues/api/queues'])
          expect((await fetch(`${gateway.url}${path}`)).status).toBe(401);
        expect(
          (await fetch(`${gateway.url}/admin/queues`, { headers: { authorization: 'Bearer wrong' } })).status,
        ).toBe(401);
        const board = await fetch(`${gateway.url}/admin/queues`, { headers: { authorization: 'Bearer admin-secret' } });
        expect(board.status).toBe(200);
        expect(await board.text()).toMatch(/<html/i);
        const api = await fetch(`${gateway.url}/admin/queues/api/queues`, {
          headers: { authorization: `Basic ${Buffer.from('ops:admin-secret').toString('base64')}` },
        });
        expect(api.status).toBe(200);
        const names = ((await api.json()) as { queues: Array<{ name: string }> }).queues
          .map((queue) => queue.name)
          .sort();
        expect(names).toEqual(['dns', 'lists', 'scoring', 'smtp']);

        // A cross-site form POST carrying cached Basic credentials changes nothing; the board's own page and the bearer token may.
        const basic = `Basic ${Buffer.from('ops:admin-secret').toString('base64')}`;
        const change = (headers: Record<string, string>) =>
          fetch(`${gateway.url}/admin/queues/api/queues/dns/pause`, { method: 'PUT', headers });
        const forged = await change({ authorization: basic, origin: 'https://evil.example' });
        expect(forged.status).toBe(403);
        expect(await forged.json()).toEqual({ error: expect.any(String), code: 'csrf' });
        expect((await change({ authorization: basic })).status).toBe(403);
        const host = new URL(gateway.url).host;
        expect((await change({ authorization: basic, origin: `http://${host}` })).status).toBeLessThan(400);
        expect(
          (
            await fetch(`${gateway.url}/admin/queues/api/queues/dns/resume`, {
              method: 'PUT',
              headers: { authorization: 'Bearer admin-secret' },
            })
          ).status,
        ).toBeLessThan(400);
      },
    );

    // Only the distributed gateway serves an admin surface; the embedded store's side is admin-token.spec.ts.
    if (distributed)
      it('throttles wrong admin tokens per client address: 429 with Retry-After past 20, the right token’s too', async () => {
        const board = (authorization: string | null, from = '203.0.113.90') =>
          fetch(`${gateway.url}/admin/queues/api/queues`, {
            headers: { 'X-Forwarded-For': from, ...(authorization ? { authorization } : {}) },
          });
        const basic = (password: string) => `Basic ${Buffer.from(`ops:${password}`).toString('base64')}`;
        // No credential at all is a browser asking for the prompt, not a guess.
        for (let i = 0; i < 5; i++) expect((await board(null)).status).toBe(401);
        for (let i = 0; i < 20; i++)
          expect((await board(i % 2 ? `Bearer guess-${i}` : basic(`guess-${i}`))).status).toBe(401);
        for (const authorization of ['Bearer one-more', 'Bearer admin-secret', basic('admin-secret')]) {
          const throttled = await board(authorization);
          expect(throttled.status).toBe(429);
          expect(await throttled.json()).toEqual({
            error: expect.stringContaining('wrong admin tokens'),
            code: 'rate_limited',
          });
          expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
        }
        // Another address is answered as ever, and unknown API keys are counted apart.
        expect((await board('Bearer admin-secret', '203.0.113.91')).status).toBe(200);
        expect((await board('Bearer wrong', '203.0.113.91')).status).toBe(401);
        expect(
          (
            await api('GET', '/v1/credits', {
              key: `mg_live_${'q'.repeat(32)}`,
              headers: { 'X-Forwarded-For': '203.0.113.90' },
            })
          ).status,
        ).toBe(401);
      });
  });

  describe('503 when a server is down', () => {
    it('answers 503 { error } to keyed requests while Postgres is unreachable', async () => {
      const down = await startGatewayProcess(
        { ...gatewayEnv(), DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' },
        workDir(),
      );
      try {
        const response = await apiClient(down.url)('GET', '/v1/credits', { key: `mg_live_${'a'.repeat(32)}` });
        expect(response.status).toBe(503);
        expect(response.body).toEqual({ error: 'The database is unavailable; retry shortly', code: 'unavailable' });
        const signupResponse = await apiClient(down.url)('POST', '/v1/accounts', {
          body: { email: 'x@catchall.test' },
        });
        expect(signupResponse.status).toBe(503);
      } finally {
        await down.stop();
      }
    });

    if (distributed)
      it('answers 503 { error } while Redis is unreachable', async () => {
        const { apiKey } = await signup();
        const down = await startGatewayProcess({ ...gatewayEnv(), REDIS_URL: 'redis://127.0.0.1:1' }, workDir());
        try {
          const response = await apiClient(down.url)('GET', '/v1/credits', { key: apiKey });
          expect(response.status).toBe(503);
          expect(response.body).toEqual({ error: 'Redis is unavailable; retry shortly', code: 'unavailable' });
        } finally {
          await down.stop();
        }
      });
  });
}
