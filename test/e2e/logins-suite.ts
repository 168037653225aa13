import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLab, type Lab } from '../lab';
import { loadScenario } from '../lab/scenario';
import { apiClient, type ApiCall, type ApiResponse } from '../support/api-client';
import { E2E_CLUSTER_ENV } from '../support/cluster-env';
import { startGatewayProcess, startWorkerProcess, WORKER_KINDS, type RunningProcess } from '../support/processes';
import { createTestDatabase, flushRedisPrefix, TEST_REDIS_URL, type TestDatabase } from '../support/services';
import type { Driver } from './api-suite';

/** A browser, as far as the gateway can tell: its cookies and its client address. */
interface Browser {
  session: string;
  csrf: string;
  address: string;
}

interface SignedIn {
  account: { id: string; email: string };
  user: { email: string; role: string };
}

const PASSWORD = 'correct horse battery';
const TOKEN = /token=([A-Za-z0-9_-]{43})/;

/**
 * People's sign-in (docs/api.md#accounts-sessions-and-members) against the built gateway and the lab:
 * passwords, sessions on the API with CSRF and roles, throttled sign-in, password reset and
 * invitations through the lab's mail relay, the audit log — on both drivers.
 */
export function loginsSuite(driver: Driver): void {
  jest.setTimeout(120_000);

  const distributed = driver === 'bullmq';
  const suitePrefix = `mgtest:${randomBytes(6).toString('hex')}:`;
  let workers: RunningProcess[] = [];
  let lab: Lab;
  let database: TestDatabase;
  let gateway: RunningProcess;
  let api: ApiCall;
  let addresses = 0;

  const workDir = () => mkdtempSync(join(tmpdir(), 'mailguard-logins-'));
  /** A client address of its own (TRUST_PROXY=1), so the per-address sign-in throttle of one test spares the others. */
  const newAddress = () => `198.51.100.${++addresses}`;

  function gatewayEnv(): Record<string, string> {
    return {
      ...lab.env,
      ...lab.relay.env,
      PUBLIC_URL: 'https://mailguard.test',
      DATABASE_URL: database.url,
      ...(distributed ? { REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: suitePrefix } : {}),
      ...E2E_CLUSTER_ENV,
      TRUST_PROXY: '1',
    };
  }

  function cookies(response: ApiResponse<unknown>): Record<string, string> {
    return Object.fromEntries(
      response.headers.getSetCookie().map((header) => {
        const [pair] = header.split(';');
        const equals = pair.indexOf('=');
        return [pair.slice(0, equals), pair.slice(equals + 1)];
      }),
    );
  }

  /** A call made by a browser: its cookies, its address, and the CSRF header when `csrf` is true. */
  function as<T = Record<string, unknown>>(
    browser: Browser,
    method: string,
    path: string,
    { body, csrf = true, headers = {} }: { body?: unknown; csrf?: boolean; headers?: Record<string, string> } = {},
  ): Promise<ApiResponse<T>> {
    return api<T>(method, path, {
      body,
      headers: {
        cookie: `mg_session=${browser.session}; mg_csrf=${browser.csrf}`,
        'X-Forwarded-For': browser.address,
        ...(csrf ? { 'X-CSRF-Token': browser.csrf } : {}),
        ...headers,
      },
    });
  }

  async function signup(password = PASSWORD): Promise<{ email: string; apiKey: string; accountId: string }> {
    const email = `owner.${randomBytes(4).toString('hex')}@catchall.test`;
    const response = await api<{ apiKey: string; account: { id: string } }>('POST', '/v1/accounts', {
      body: { email, password },
      headers: { 'X-Forwarded-For': newAddress() },
    });
    expect(response.status).toBe(201);
    return { email, apiKey: response.body.apiKey, accountId: response.body.account.id };
  }

  function loginCall(email: string, password: string, address = newAddress()) {
    return api<SignedIn & { error?: string; code?: string }>('POST', '/auth/login', {
      body: { email, password },
      headers: { 'X-Forwarded-For': address, 'User-Agent': 'e2e-browser/1.0' },
    });
  }

  async function login(email: string, password = PASSWORD): Promise<Browser> {
    const address = newAddress();
    const response = await loginCall(email, password, address);
    expect(response.status).toBe(200);
    const set = cookies(response);
    return { session: set.mg_session, csrf: set.mg_csrf, address };
  }

  /** The token of the newest link mailed to `to` since `since` messages. */
  async function mailedToken(to: string, since: number): Promise<string> {
    const message = await lab.relay.waitFor(to, since);
    const token = TOKEN.exec(message.body)?.[1];
    expect(token).toBeDefined();
    return token as string;
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

  it('signs up with a password and refuses one that breaks the rules', async () => {
    const short = await api('POST', '/v1/accounts', {
      body: { email: 'someone@catchall.test', password: 'short' },
      headers: { 'X-Forwarded-For': newAddress() },
    });
    expect(short.status).toBe(400);
    expect(short.body).toMatchObject({ code: 'bad_request', error: expect.stringMatching(/at least 10/) });
    const same = await api('POST', '/v1/accounts', {
      body: { email: 'Someone.Else@catchall.test', password: 'someone.else@CATCHALL.test' },
      headers: { 'X-Forwarded-For': newAddress() },
    });
    expect(same.status).toBe(400);
    const [row] = await database.query<{ password_hash: string }>('SELECT password_hash FROM accounts WHERE id = $1', [
      (await signup()).accountId,
    ]);
    expect(row.password_hash).toMatch(/^scrypt\$32768\$8\$1\$/);
  });

  it('signs in with a session cookie that works the API like a full key, CSRF token required to change anything', async () => {
    const owner = await signup();
    const response = await loginCall(owner.email, PASSWORD);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ account: { id: owner.accountId }, user: { role: 'owner' } });
    const [session, csrf] = response.headers.getSetCookie();
    expect(session).toMatch(/^mg_session=[A-Za-z0-9_-]{43};/);
    expect(session.split('; ')).toEqual(expect.arrayContaining(['HttpOnly', 'SameSite=Lax', 'Path=/', 'Secure']));
    expect(csrf).toMatch(/^mg_csrf=[A-Za-z0-9_-]{43};/);
    expect(csrf).not.toMatch(/HttpOnly/);
    const set = cookies(response);
    const browser: Browser = { session: set.mg_session, csrf: set.mg_csrf, address: newAddress() };

    const check = await as<{ status: string }>(browser, 'GET', '/v1/email-validation/jane@acme.test', { csrf: false });
    expect(check.status).toBe(200);
    expect(check.body.status).toBe('valid');
    expect(check.headers.get('x-credits-remaining')).toMatch(/^\d+$/);
    expect(check.headers.get('ratelimit-limit')).toBe('60');
    expect((await as(browser, 'GET', '/v1/lists', { csrf: false })).status).toBe(200);

    const batch = { emails: ['jane@acme.test'] };
    const refused = await as(browser, 'POST', '/v1/email-validation/batch', { body: batch, csrf: false });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'csrf' });
    const wrong = await as(browser, 'POST', '/v1/keys', {
      body: { name: 'x', scope: 'full' },
      headers: { 'X-CSRF-Token': 'A'.repeat(43) },
    });
    expect(wrong.status).toBe(403);
    expect(wrong.body).toMatchObject({ code: 'csrf' });
    expect((await as(browser, 'POST', '/v1/email-validation/batch', { body: batch })).status).toBe(200);

    // Without a cookie or with a made-up one: 401, as without a key.
    expect((await api('GET', '/v1/lists')).status).toBe(401);
    expect((await as({ ...browser, session: 'B'.repeat(43) }, 'GET', '/v1/lists')).status).toBe(401);
    // A key sent beside the cookie wins: the key's scope decides.
    const readOnly = await api<{ key: string }>('POST', '/v1/keys', {
      key: owner.apiKey,
      body: { name: 'ro', scope: 'read-only' },
    });
    expect(
      (await as(browser, 'GET', '/v1/email-validation/jane@acme.test', { headers: { 'X-API-Key': readOnly.body.key } }))
        .status,
    ).toBe(403);

    // A suspended account's sessions answer 403 account_suspended.
    await database.query("UPDATE accounts SET status = 'suspended' WHERE id = $1", [owner.accountId]);
    const suspended = await as(browser, 'GET', '/v1/lists');
    expect(suspended.status).toBe(403);
    expect(suspended.body).toMatchObject({ code: 'account_suspended' });
    await database.query("UPDATE accounts SET status = 'active' WHERE id = $1", [owner.accountId]);
  });

  it('answers a wrong email and a wrong password alike, then 429 past 10 failures of an email or an address', async () => {
    const owner = await signup();
    const unknown = await loginCall(`nobody.${randomBytes(3).toString('hex')}@catchall.test`, PASSWORD);
    const wrong = await loginCall(owner.email, 'not the password');
    expect([unknown.status, wrong.status]).toEqual([401, 401]);
    expect(unknown.body).toEqual(wrong.body);

    // Ten failures of one email, each from another address: the eleventh is refused, the right password too.
    for (let i = 1; i < 10; i++) expect((await loginCall(owner.email, `guess ${i} guess`)).status).toBe(401);
    const throttled = await loginCall(owner.email, PASSWORD);
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);

    // Ten failures from one address, each for another email.
    const address = newAddress();
    for (let i = 0; i < 10; i++)
      expect(
        (await loginCall(`guess${i}.${randomBytes(3).toString('hex')}@catchall.test`, PASSWORD, address)).status,
      ).toBe(401);
    const fromAddress = await loginCall((await signup()).email, PASSWORD, address);
    expect(fromAddress.status).toBe(429);
    expect(fromAddress.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('lists the sessions, ends one, signs out, and a password reset by mail ends the rest', async () => {
    const owner = await signup();
    const first = await login(owner.email);
    const second = await login(owner.email);
    const listed = await as<{ data: Array<{ id: string; current: boolean; device: string; address: string }> }>(
      first,
      'GET',
      '/auth/sessions',
    );
    expect(listed.status).toBe(200);
    expect(listed.body.data).toHaveLength(2);
    const current = listed.body.data.find((session) => session.current);
    const other = listed.body.data.find((session) => !session.current);
    expect(current).toMatchObject({ device: 'e2e-browser/1.0', address: first.address });
    expect(other).toMatchObject({ address: second.address });

    expect((await as(first, 'DELETE', `/auth/sessions/${other?.id}`, { csrf: false })).status).toBe(403);
    expect((await as(first, 'DELETE', `/auth/sessions/${other?.id}`)).status).toBe(204);
    expect((await as(second, 'GET', '/v1/lists')).status).toBe(401);
    // Another account's session is not found.
    const stranger = await login((await signup()).email);
    expect((await as(stranger, 'DELETE', `/auth/sessions/${current?.id}`)).status).toBe(404);

    const out = await as(stranger, 'POST', '/auth/logout');
    expect(out.status).toBe(204);
    expect(out.headers.getSetCookie().join('\n')).toMatch(/mg_session=;.*Max-Age=0/);
    expect((await as(stranger, 'GET', '/v1/lists')).status).toBe(401);

    // Reset: 202 whatever the email; the link comes through the relay, works once, and ends every session.
    const third = await login(owner.email);
    const since = lab.relay.messages.length;
    const nobody = await api('POST', '/auth/password-reset', { body: { email: 'nobody@catchall.test' } });
    const asked = await api('POST', '/auth/password-reset', { body: { email: owner.email.toUpperCase() } });
    expect([nobody.status, asked.status]).toEqual([202, 202]);
    const message = await lab.relay.waitFor(owner.email, since);
    expect(message.body).toMatch(/https:\/\/mailguard\.test\/dashboard\/#\/reset\?token=/);
    const token = await mailedToken(owner.email, since);
    const weak = await api('POST', '/auth/password-reset/confirm', { body: { token, password: 'short' } });
    expect(weak.status).toBe(400);
    const NEW = 'a brand new passphrase';
    expect((await api('POST', '/auth/password-reset/confirm', { body: { token, password: NEW } })).status).toBe(204);
    expect((await api('POST', '/auth/password-reset/confirm', { body: { token, password: NEW } })).status).toBe(400);
    expect((await as(first, 'GET', '/v1/lists')).status).toBe(401);
    expect((await as(third, 'GET', '/v1/lists')).status).toBe(401);
    expect((await loginCall(owner.email, PASSWORD)).status).toBe(401);
    const fresh = await login(owner.email, NEW);

    // A password change ends the person's other sessions, not the current one.
    const elsewhere = await login(owner.email, NEW);
    const changed = await as(fresh, 'POST', '/auth/password', {
      body: { currentPassword: NEW, password: 'yet another passphrase' },
    });
    expect(changed.status).toBe(204);
    expect((await as(fresh, 'GET', '/v1/lists')).status).toBe(200);
    expect((await as(elsewhere, 'GET', '/v1/lists')).status).toBe(401);
  });

  it('invites members whose role decides what their session may do, and writes every change to the audit log', async () => {
    const owner = await signup();
    const browser = await login(owner.email);
    const invite = async (role: string): Promise<{ email: string; member: Browser }> => {
      const email = `${role}.${randomBytes(3).toString('hex')}@example.test`;
      const since = lab.relay.messages.length;
      const invited = await as<{ id: string; role: string }>(browser, 'POST', '/auth/members', {
        body: { email, role },
      });
      expect(invited.status).toBe(201);
      expect(invited.body).toMatchObject({ email, role, acceptedAt: null });
      const token = await mailedToken(email, since);
      const address = newAddress();
      const accepted = await api<SignedIn>('POST', '/auth/invitations/accept', {
        body: { token, password: PASSWORD },
        headers: { 'X-Forwarded-For': address },
      });
      expect(accepted.status).toBe(200);
      expect(accepted.body).toMatchObject({ account: { id: owner.accountId }, user: { email, role } });
      const set = cookies(accepted);
      return { email, member: { session: set.mg_session, csrf: set.mg_csrf, address } };
    };

    const developer = await invite('developer');
    const created = await as<{ key: string }>(developer.member, 'POST', '/v1/keys', {
      body: { name: 'dev key', scope: 'verify' },
    });
    expect(created.status).toBe(201);
    expect((await as(developer.member, 'GET', '/v1/email-validation/jane@acme.test')).status).toBe(200);
    expect((await as(developer.member, 'GET', '/v1/credits')).status).toBe(200);
    const usage = await as(developer.member, 'GET', '/v1/credits/usage');
    expect(usage.status).toBe(403);
    expect(usage.body).toMatchObject({ code: 'forbidden' });
    expect((await as(developer.member, 'GET', '/auth/members')).status).toBe(403);
    // The developer signs in with their own email and password too.
    expect((await loginCall(developer.email, PASSWORD)).body).toMatchObject({ user: { role: 'developer' } });

    const billing = await invite('billing');
    expect((await as(billing.member, 'GET', '/v1/credits/usage')).status).toBe(200);
    expect((await as(billing.member, 'GET', '/v1/credits/transactions')).status).toBe(200);
    expect((await as(billing.member, 'GET', '/v1/email-validation/jane@acme.test')).status).toBe(403);
    expect((await as(billing.member, 'GET', '/v1/keys')).status).toBe(403);

    // An address that already signs in cannot be invited again.
    expect((await as(browser, 'POST', '/auth/members', { body: { email: billing.email, role: 'admin' } })).status).toBe(
      409,
    );
    expect(
      (await as(browser, 'POST', '/auth/members', { body: { email: 'x@example.test', role: 'owner' } })).status,
    ).toBe(400);

    const members = await as<{ data: Array<{ id: string; email: string; acceptedAt: string | null }> }>(
      browser,
      'GET',
      '/auth/members',
    );
    expect(members.body.data.map((member) => member.email).sort()).toEqual([billing.email, developer.email].sort());
    const removed = members.body.data.find((member) => member.email === billing.email);
    expect((await as(browser, 'DELETE', `/auth/members/${removed?.id}`)).status).toBe(204);
    expect((await as(billing.member, 'GET', '/v1/credits/usage')).status).toBe(401);

    // The account's full key reads the audit log too.
    const audit = await api<{
      data: Array<{ actor: string; action: string; target: string; address: string; requestId: string; time: string }>;
      total: number;
    }>('GET', '/auth/audit?limit=100', { key: owner.apiKey });
    expect(audit.status).toBe(200);
    const actions = audit.body.data.map((entry) => entry.action);
    expect(actions).toEqual(
      expect.arrayContaining(['session.login', 'member.invite', 'member.accept', 'key.create', 'member.remove']),
    );
    const keyCreate = audit.body.data.find((entry) => entry.action === 'key.create');
    expect(keyCreate).toMatchObject({
      actor: expect.stringMatching(/^member:mem_/),
      address: developer.member.address,
    });
    expect(keyCreate?.requestId).toMatch(/\S/);
    expect(audit.body.total).toBe(audit.body.data.length);
  });
}
