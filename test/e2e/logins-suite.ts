import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLab, type Lab } from '../lab';
import { loadScenario } from '../lab/scenario';
import { E2E_CLUSTER_ENV } from '../support/cluster-env';
import { startCluster, type RunningProcess } from '../support/processes';
import { createTestDatabase, flushRedisPrefix, TEST_REDIS_URL, type TestDatabase } from '../support/services';
import type { Driver } from './api-suite';

/** What a response to one call holds: status, headers, the raw text and the parsed JSON body. */
interface Reply<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  text: string;
  body: T;
}

/** A browser's two cookies, read by hand from Set-Cookie. */
interface Jar {
  session: string;
  csrf: string;
}

interface CallOptions {
  jar?: Jar;
  /** true: the jar's CSRF token; a string: that token; absent: no X-CSRF-Token header. */
  csrf?: true | string;
  key?: string;
  body?: unknown;
  /** The client address (X-Forwarded-For, the gateway trusts one proxy). */
  ip?: string;
  requestId?: string;
  headers?: Record<string, string>;
}

interface SessionView {
  id: string;
  device: string | null;
  address: string | null;
  createdAt: string;
  lastSeenAt: string;
  current: boolean;
}

interface AuditView {
  actor: string;
  action: string;
  target: string | null;
  time: string;
  address: string | null;
  requestId: string | null;
}

interface MemberView {
  id: string;
  email: string;
  role: string;
  acceptedAt: string | null;
}

const PASSWORD = 'correct horse battery';
const ADMIN_TOKEN = `admin-${randomBytes(12).toString('hex')}`;

/**
 * People's sign-in against the built service (docs/api.md#accounts-sessions-and-members): the session
 * and CSRF cookies, a session standing for a `full` key, the CSRF token on changes, one 401 for a wrong
 * email or password, the sign-in throttle, sessions listed and ended, password reset and member
 * invitations through the lab's mail relay, the members' roles, and the account's audit log.
 */
export function loginsSuite(driver: Driver): void {
  jest.setTimeout(180_000);

  const distributed = driver === 'bullmq';
  const prefix = `mglogins:${randomBytes(6).toString('hex')}:`;
  let lab: Lab;
  let database: TestDatabase | null = null;
  let cwd: string;
  const started: RunningProcess[] = [];
  let base: string;
  /** A fresh client address per caller, so the per-address throttle of one test never reaches another. */
  let addresses = 0;
  const nextIp = () => {
    addresses += 1;
    return `10.77.${Math.floor(addresses / 250)}.${(addresses % 250) + 1}`;
  };

  async function call<T = Record<string, unknown>>(
    method: string,
    path: string,
    options: CallOptions = {},
  ): Promise<Reply<T>> {
    const headers: Record<string, string> = { 'X-Forwarded-For': options.ip ?? nextIp(), ...options.headers };
    if (options.jar) headers.Cookie = `mg_session=${options.jar.session}; mg_csrf=${options.jar.csrf}`;
    if (options.csrf) headers['X-CSRF-Token'] = options.csrf === true ? options.jar!.csrf : options.csrf;
    if (options.key) headers['X-API-Key'] = options.key;
    if (options.requestId) headers['X-Request-Id'] = options.requestId;
    let body: string | undefined;
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    const response = await fetch(`${base}${path}`, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    if ((response.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
    return { status: response.status, headers: response.headers, text, body: parsed as T };
  }

  /** The value of a cookie set by a response, and its attributes. */
  function cookieOf(reply: Reply<unknown>, name: string): { value: string; attributes: string[] } {
    const line = reply.headers.getSetCookie().find((cookie) => cookie.startsWith(`${name}=`));
    if (!line) throw new Error(`no ${name} cookie in ${JSON.stringify(reply.headers.getSetCookie())}`);
    const [pair, ...attributes] = line.split(';').map((part) => part.trim());
    return { value: pair.slice(name.length + 1), attributes };
  }

  function jarOf(reply: Reply<unknown>): Jar {
    return { session: cookieOf(reply, 'mg_session').value, csrf: cookieOf(reply, 'mg_csrf').value };
  }

  async function login(email: string, password = PASSWORD, ip?: string): Promise<Jar> {
    const reply = await call('POST', '/auth/login', { body: { email, password }, ip });
    expect(reply.status).toBe(200);
    return jarOf(reply);
  }

  /** An account with a password at the lab's catch-all domain (the sign-up check must reach it). */
  async function signup(label = 'owner'): Promise<{ email: string; key: string; id: string }> {
    const email = `${label}.${randomBytes(4).toString('hex')}@catchall.test`;
    const reply = await call<{ apiKey: string; account: { id: string } }>('POST', '/v1/accounts', {
      body: { email, password: PASSWORD },
    });
    expect(reply.status).toBe(201);
    return { email, key: reply.body.apiKey, id: reply.body.account.id };
  }

  /** The one-time token of the link in the next mail to `to` after `since` messages. */
  async function tokenMailed(to: string, since: number): Promise<string> {
    const message = await lab.relay.waitFor(to, since);
    const match = /token=([A-Za-z0-9_-]+)/.exec(message.body);
    if (!match) throw new Error(`no token in the mail to ${to}: ${message.body}`);
    return match[1];
  }

  const mailsTo = (to: string, since = 0) =>
    lab.relay.messages.slice(since).filter((message) => message.to.includes(to.toLowerCase())).length;

  beforeAll(async () => {
    lab = await startLab(loadScenario());
    if (distributed) database = await createTestDatabase();
    cwd = mkdtempSync(join(tmpdir(), 'mailguard-logins-'));
    const env = {
      ...lab.env,
      ...lab.relay.env,
      ...E2E_CLUSTER_ENV,
      ...(distributed ? { DATABASE_URL: database!.url, REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: prefix } : {}),
      PUBLIC_URL: 'http://mailguard.test',
      COOKIE_SECURE: 'false',
      TRUST_PROXY: '1',
      ADMIN_TOKEN,
      RATE_LIMIT_PER_MINUTE: '100000',
    };
    const cluster = await startCluster(env, distributed, () => cwd);
    started.push(...cluster.processes);
    base = cluster.gateway.url;
  });

  afterAll(async () => {
    await Promise.all(started.map((process) => process.stop()));
    await lab?.stop();
    await database?.drop();
    if (distributed) await flushRedisPrefix(prefix);
    rmSync(cwd, { recursive: true, force: true });
  });

  it('signs in with the sign-up password: an HttpOnly Lax session cookie, a readable CSRF cookie, a full key of the account', async () => {
    const owner = await signup();
    const reply = await call<{ account: { id: string; email: string } }>('POST', '/auth/login', {
      body: { email: owner.email, password: PASSWORD },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.account).toMatchObject({ id: owner.id, email: owner.email });

    const session = cookieOf(reply, 'mg_session');
    expect(session.value).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(session.attributes).toEqual(expect.arrayContaining(['HttpOnly', 'SameSite=Lax', 'Path=/']));
    expect(session.attributes).not.toContain('Secure');
    const csrf = cookieOf(reply, 'mg_csrf');
    expect(csrf.value).toMatch(/^[A-Za-z0-9_-]{16,}$/);
    expect(csrf.attributes).not.toContain('HttpOnly');
    expect(csrf.attributes).not.toContain('Secure');
    const jar = jarOf(reply);

    const credits = await call('GET', '/v1/credits', { jar });
    expect(credits.status).toBe(200);
    expect(credits.headers.get('x-credits-remaining')).toMatch(/^\d+$/);
    const keys = await call<{ data: Array<{ prefix: string }> }>('GET', '/v1/keys', { jar });
    expect(keys.status).toBe(200);
    expect(keys.body.data.map((key) => key.prefix)).toContain(owner.key.slice(0, 12));
    // A paid check too: the owner's session is a `full` key.
    const check = await call<{ email: string }>('GET', '/v1/email-validation/someone@catchall.test', { jar });
    expect(check.status).toBe(200);
    expect(check.body.email).toBe('someone@catchall.test');

    // Without the cookie, nothing.
    expect((await call('GET', '/v1/keys')).status).toBe(401);
    expect((await call('GET', '/v1/keys', { jar: { session: 'x'.repeat(43), csrf: jar.csrf } })).status).toBe(401);
  });

  it('refuses a cookie-authenticated change without the CSRF token or with a wrong one (403 csrf)', async () => {
    const owner = await signup();
    const jar = await login(owner.email);
    const body = { name: 'from the browser', scope: 'full' };

    const missing = await call('POST', '/v1/keys', { jar, body });
    expect(missing.status).toBe(403);
    expect(missing.body).toMatchObject({ code: 'csrf' });
    const wrong = await call('POST', '/v1/keys', { jar, body, csrf: `${jar.csrf.slice(0, -2)}xx` });
    expect(wrong.status).toBe(403);
    expect(wrong.body).toMatchObject({ code: 'csrf' });
    const right = await call<{ key: string }>('POST', '/v1/keys', { jar, body, csrf: true });
    expect(right.status).toBe(201);

    const keys = await call<{ data: Array<{ name: string }> }>('GET', '/v1/keys', { jar });
    expect(keys.body.data.filter((key) => key.name === 'from the browser')).toHaveLength(1);
  });

  it('answers a wrong email and a wrong password with the same 401 and the same words', async () => {
    const owner = await signup();
    const wrongEmail = await call('POST', '/auth/login', {
      body: { email: `nobody.${randomBytes(4).toString('hex')}@catchall.test`, password: PASSWORD },
    });
    const wrongPassword = await call('POST', '/auth/login', {
      body: { email: owner.email, password: 'not the password at all' },
    });
    expect(wrongEmail.status).toBe(401);
    expect(wrongPassword.status).toBe(401);
    expect(wrongEmail.body).toMatchObject({ code: 'unauthorized' });
    expect(wrongPassword.text).toBe(wrongEmail.text);
    expect(wrongPassword.headers.getSetCookie()).toEqual([]);
  });

  it('throttles an email after 10 failures in 15 minutes: 429 with Retry-After, even for the right password', async () => {
    const owner = await signup();
    // Each failure from another address: the email's own count trips, not an address's.
    for (let attempt = 0; attempt < 10; attempt++) {
      const failed = await call('POST', '/auth/login', {
        body: { email: owner.email, password: `wrong-${attempt}-xxxx` },
      });
      expect(failed.status).toBe(401);
    }
    const throttled = await call('POST', '/auth/login', { body: { email: owner.email, password: 'wrong again xx' } });
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
    const right = await call('POST', '/auth/login', { body: { email: owner.email, password: PASSWORD } });
    expect(right.status).toBe(429);
    expect(right.body).toMatchObject({ code: 'rate_limited' });
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(right.headers.getSetCookie()).toEqual([]);

    // Another login is untouched by that email's count.
    const other = await signup();
    await login(other.email);
  });

  it('throttles a client address after 10 failures, whatever the emails', async () => {
    const ip = nextIp();
    for (let attempt = 0; attempt < 10; attempt++) {
      const failed = await call('POST', '/auth/login', {
        ip,
        body: { email: `stranger${attempt}.${randomBytes(3).toString('hex')}@catchall.test`, password: PASSWORD },
      });
      expect(failed.status).toBe(401);
    }
    const owner = await signup();
    const throttled = await call('POST', '/auth/login', { ip, body: { email: owner.email, password: PASSWORD } });
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
    await login(owner.email, PASSWORD, nextIp());
  });

  it('lists the sessions (one current), ends another one, refuses another account’s, and signs out', async () => {
    const owner = await signup();
    const first = await login(owner.email, PASSWORD, '10.78.0.1');
    const second = await login(owner.email, PASSWORD, '10.78.0.2');

    const listed = await call<{ data: SessionView[] }>('GET', '/auth/sessions', { jar: first });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toHaveLength(2);
    expect(listed.body.data.filter((session) => session.current)).toHaveLength(1);
    const current = listed.body.data.find((session) => session.current)!;
    const other = listed.body.data.find((session) => !session.current)!;
    expect(current.address).toBe('10.78.0.1');
    expect(other.address).toBe('10.78.0.2');

    const stranger = await signup('stranger');
    const strangerJar = await login(stranger.email);
    const foreign = await call('DELETE', `/auth/sessions/${other.id}`, { jar: strangerJar, csrf: true });
    expect(foreign.status).toBe(404);
    expect((await call('GET', '/v1/credits', { jar: second })).status).toBe(200);

    const ended = await call('DELETE', `/auth/sessions/${other.id}`, { jar: first, csrf: true });
    expect(ended.status).toBe(204);
    expect((await call('GET', '/v1/credits', { jar: second })).status).toBe(401);
    expect((await call('GET', '/v1/credits', { jar: first })).status).toBe(200);
    const after = await call<{ data: SessionView[] }>('GET', '/auth/sessions', { jar: first });
    expect(after.body.data.map((session) => session.id)).toEqual([current.id]);

    const outId = `logout-${randomBytes(6).toString('hex')}`;
    const out = await call('POST', '/auth/logout', { jar: first, csrf: true, requestId: outId, ip: '10.78.0.1' });
    expect(out.status).toBe(204);
    expect(cookieOf(out, 'mg_session').value).toBe('');
    expect((await call('GET', '/v1/credits', { jar: first })).status).toBe(401);
    expect((await call('GET', '/v1/credits', { jar: strangerJar })).status).toBe(200);

    const audit = await call<{ data: AuditView[] }>('GET', '/auth/audit', { jar: await login(owner.email) });
    expect(audit.body.data.filter((entry) => entry.action === 'session.logout')).toEqual([
      expect.objectContaining({
        actor: `account:${owner.id}`,
        target: current.id,
        requestId: outId,
        address: '10.78.0.1',
      }),
    ]);
    expect(audit.body.data.filter((entry) => entry.action === 'session.end')).toEqual([
      expect.objectContaining({ actor: `account:${owner.id}`, target: other.id }),
    ]);
  });

  it('resets a password through the mailed link: every session ends, the old password stops, the link works once', async () => {
    const owner = await signup();
    const sessions = [await login(owner.email), await login(owner.email)];
    const since = lab.relay.messages.length;
    const unknown = `nobody.${randomBytes(4).toString('hex')}@catchall.test`;

    const known = await call('POST', '/auth/password-reset', { body: { email: owner.email } });
    const stranger = await call('POST', '/auth/password-reset', { body: { email: unknown } });
    expect(known.status).toBe(202);
    expect(stranger.status).toBe(202);
    expect(stranger.text).toBe(known.text);

    const token = await tokenMailed(owner.email, since);
    const message = lab.relay.messages.slice(since).find((mail) => mail.to.includes(owner.email))!;
    expect(message.body).toContain(`http://mailguard.test/dashboard/#/reset?token=${token}`);
    expect(message.from).toBe('noreply@mailguard.test');
    expect(mailsTo(owner.email, since)).toBe(1);
    expect(mailsTo(unknown, since)).toBe(0);
    expect(lab.relay.violations).toEqual([]);

    const next = 'a brand new passphrase';
    const confirmed = await call('POST', '/auth/password-reset/confirm', {
      body: { token, password: next },
      requestId: `reset-${randomBytes(4).toString('hex')}`,
    });
    expect(confirmed.status).toBe(204);
    for (const jar of sessions) expect((await call('GET', '/v1/credits', { jar })).status).toBe(401);

    expect((await call('POST', '/auth/login', { body: { email: owner.email, password: PASSWORD } })).status).toBe(401);
    await login(owner.email, next);

    const again = await call('POST', '/auth/password-reset/confirm', {
      body: { token, password: 'yet another passphrase' },
    });
    expect(again.status).toBeGreaterThanOrEqual(400);
    expect(again.status).toBeLessThan(500);
    await login(owner.email, next);
    // Mail to a known address only, exactly once (no later message either).
    expect(mailsTo(owner.email, since)).toBe(1);
    expect(mailsTo(unknown, since)).toBe(0);
  });

  it('invites members by mail; their roles decide what their sessions may do; removing one ends their session; the audit tells it all', async () => {
    const owner = await signup();
    const ownerIp = nextIp();
    const ownerJar = await login(owner.email, PASSWORD, ownerIp);
    const developerEmail = `dev.${randomBytes(4).toString('hex')}@catchall.test`;
    const billingEmail = `billing.${randomBytes(4).toString('hex')}@catchall.test`;
    const since = lab.relay.messages.length;
    const requestIds: Record<string, string> = {};
    const rid = (label: string) => (requestIds[label] = `${label}-${randomBytes(6).toString('hex')}`);

    const invitedDeveloper = await call<MemberView>('POST', '/auth/members', {
      jar: ownerJar,
      csrf: true,
      ip: ownerIp,
      body: { email: developerEmail, role: 'developer' },
      requestId: rid('invite-dev'),
    });
    expect(invitedDeveloper.status).toBe(201);
    expect(invitedDeveloper.headers.get('x-request-id')).toBe(requestIds['invite-dev']);
    expect(invitedDeveloper.body).toMatchObject({ email: developerEmail, role: 'developer', acceptedAt: null });
    const invitedBilling = await call<MemberView>('POST', '/auth/members', {
      jar: ownerJar,
      csrf: true,
      ip: ownerIp,
      body: { email: billingEmail, role: 'billing' },
    });
    expect(invitedBilling.status).toBe(201);
    // The CSRF token is asked of the owner's changes to members too.
    const forged = await call('POST', '/auth/members', {
      jar: ownerJar,
      body: { email: `forged.${randomBytes(3).toString('hex')}@catchall.test`, role: 'admin' },
    });
    expect(forged.status).toBe(403);
    expect(forged.body).toMatchObject({ code: 'csrf' });

    const developerToken = await tokenMailed(developerEmail, since);
    const billingToken = await tokenMailed(billingEmail, since);
    const accepted = await call<{ account: { id: string } }>('POST', '/auth/invitations/accept', {
      body: { token: developerToken, password: 'developer passphrase' },
      requestId: rid('accept-dev'),
    });
    expect(accepted.status).toBe(200);
    expect(accepted.body.account.id).toBe(owner.id);
    const developer = jarOf(accepted);
    const billingAccepted = await call('POST', '/auth/invitations/accept', {
      body: { token: billingToken, password: 'billing passphrase' },
    });
    expect(billingAccepted.status).toBe(200);
    const billing = jarOf(billingAccepted);
    // An invitation works once.
    const twice = await call('POST', '/auth/invitations/accept', {
      body: { token: developerToken, password: 'developer passphrase 2' },
    });
    expect(twice.status).toBe(400);

    // The developer: keys (with the CSRF token), checks; not usage nor the ledger, nor members.
    const key = await call<{ id: string }>('POST', '/v1/keys', {
      jar: developer,
      csrf: true,
      body: { name: 'developer key', scope: 'verify' },
      requestId: rid('key-create'),
    });
    expect(key.status).toBe(201);
    expect((await call('GET', '/v1/credits/usage', { jar: developer })).status).toBe(403);
    expect((await call('GET', '/v1/credits/transactions', { jar: developer })).status).toBe(403);
    const developerInvites = await call('POST', '/auth/members', {
      jar: developer,
      csrf: true,
      body: { email: `more.${randomBytes(3).toString('hex')}@catchall.test`, role: 'admin' },
    });
    expect(developerInvites.status).toBe(403);
    expect((await call('GET', '/auth/audit', { jar: developer })).status).toBe(403);

    // Billing: usage and the ledger; no check, no key.
    expect((await call('GET', '/v1/credits/usage', { jar: billing })).status).toBe(200);
    expect((await call('GET', '/v1/credits/transactions', { jar: billing })).status).toBe(200);
    const billingCheck = await call('GET', '/v1/email-validation/x@catchall.test', { jar: billing });
    expect(billingCheck.status).toBe(403);
    expect(billingCheck.body).toMatchObject({ code: 'forbidden' });
    const billingKey = await call('POST', '/v1/keys', {
      jar: billing,
      csrf: true,
      body: { name: 'billing key', scope: 'full' },
    });
    expect(billingKey.status).toBe(403);

    const members = await call<{ data: MemberView[] }>('GET', '/auth/members', { jar: ownerJar });
    expect(members.status).toBe(200);
    expect(members.body.data.map((member) => [member.email, member.role, member.acceptedAt !== null])).toEqual([
      [developerEmail, 'developer', true],
      [billingEmail, 'billing', true],
    ]);

    // Removing the developer ends their session.
    const removed = await call('DELETE', `/auth/members/${invitedDeveloper.body.id}`, {
      jar: ownerJar,
      csrf: true,
      ip: ownerIp,
      requestId: rid('remove-dev'),
    });
    expect(removed.status).toBe(204);
    expect((await call('GET', '/v1/keys', { jar: developer })).status).toBe(401);
    expect((await call('GET', '/v1/credits/usage', { jar: billing })).status).toBe(200);
    expect(
      (await call('DELETE', `/auth/members/${invitedDeveloper.body.id}`, { jar: ownerJar, csrf: true })).status,
    ).toBe(404);

    // A session ended and a password reset, for the log.
    const spare = await login(owner.email);
    const spareId = (await call<{ data: SessionView[] }>('GET', '/auth/sessions', { jar: spare })).body.data.find(
      (session) => session.current,
    )!.id;
    const endSpare = await call('DELETE', `/auth/sessions/${spareId}`, {
      jar: ownerJar,
      csrf: true,
      ip: ownerIp,
      requestId: rid('session-end'),
    });
    expect(endSpare.status).toBe(204);
    const resetSince = lab.relay.messages.length;
    expect((await call('POST', '/auth/password-reset', { body: { email: owner.email } })).status).toBe(202);
    const resetToken = await tokenMailed(owner.email, resetSince);
    const reset = await call('POST', '/auth/password-reset/confirm', {
      body: { token: resetToken, password: 'owner passphrase two' },
      requestId: rid('reset'),
    });
    expect(reset.status).toBe(204);
    const ownerAgain = await login(owner.email, 'owner passphrase two');

    const audit = await call<{ data: AuditView[]; total: number }>('GET', '/auth/audit?limit=100', { jar: ownerAgain });
    expect(audit.status).toBe(200);
    const entries = audit.body.data;
    for (const entry of entries) {
      expect(Object.keys(entry).sort()).toEqual(['action', 'actor', 'address', 'requestId', 'target', 'time']);
      expect(Number.isNaN(Date.parse(entry.time))).toBe(false);
    }
    const byRequest = (label: string) => entries.filter((entry) => entry.requestId === requestIds[label]);
    const memberId = invitedDeveloper.body.id;
    expect(byRequest('invite-dev')).toEqual([
      expect.objectContaining({
        action: 'member.invite',
        actor: `account:${owner.id}`,
        target: memberId,
        address: ownerIp,
      }),
    ]);
    expect(
      byRequest('accept-dev')
        .map((entry) => entry.action)
        .sort(),
    ).toEqual(['member.accept', 'session.login']);
    expect(byRequest('accept-dev')[0].actor).toBe(`member:${memberId}`);
    expect(byRequest('key-create')).toEqual([
      expect.objectContaining({ action: 'key.create', actor: `member:${memberId}`, target: key.body.id }),
    ]);
    expect(byRequest('remove-dev')).toEqual([
      expect.objectContaining({
        action: 'member.remove',
        actor: `account:${owner.id}`,
        target: memberId,
        address: ownerIp,
      }),
    ]);
    expect(byRequest('session-end')).toEqual([
      expect.objectContaining({
        action: 'session.end',
        actor: `account:${owner.id}`,
        target: spareId,
        address: ownerIp,
      }),
    ]);
    expect(byRequest('reset')).toEqual([
      expect.objectContaining({ action: 'password.reset', actor: `account:${owner.id}`, target: owner.id }),
    ]);
    const logins = entries.filter((entry) => entry.action === 'session.login');
    // The owner's three sign-ins and the two acceptances.
    expect(logins).toHaveLength(5);
    expect(logins.some((entry) => entry.address === ownerIp && entry.actor === `account:${owner.id}`)).toBe(true);
    expect(entries.filter((entry) => entry.action === 'member.invite')).toHaveLength(2);
    // Newest first.
    const times = entries.map((entry) => Date.parse(entry.time));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(audit.body.total).toBe(entries.length);

    // Another account sees none of it.
    const stranger = await signup('stranger');
    const foreign = await call<{ data: AuditView[] }>('GET', '/auth/audit', { jar: await login(stranger.email) });
    expect(foreign.body.data.map((entry) => entry.action)).toEqual(['session.login']);
  });

  it('an admin member manages members and reads the audit; their own password reset ends only their sessions', async () => {
    const owner = await signup();
    const ownerJar = await login(owner.email);
    const adminEmail = `admin.${randomBytes(4).toString('hex')}@catchall.test`;
    const since = lab.relay.messages.length;
    const invited = await call<MemberView>('POST', '/auth/members', {
      jar: ownerJar,
      csrf: true,
      body: { email: adminEmail, role: 'admin' },
    });
    expect(invited.status).toBe(201);
    const accepted = await call('POST', '/auth/invitations/accept', {
      body: { token: await tokenMailed(adminEmail, since), password: 'admin passphrase one' },
    });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ account: { id: owner.id }, user: { email: adminEmail, role: 'admin' } });
    const adminJar = jarOf(accepted);
    expect((await call('GET', '/auth/audit', { jar: adminJar })).status).toBe(200);
    expect((await call('GET', '/v1/credits/usage', { jar: adminJar })).status).toBe(200);
    const invitedByAdmin = await call('POST', '/auth/members', {
      jar: adminJar,
      csrf: true,
      body: { email: `third.${randomBytes(4).toString('hex')}@catchall.test`, role: 'billing' },
    });
    expect(invitedByAdmin.status).toBe(201);
    // A person sees their own sessions only.
    const adminSessions = await call<{ data: SessionView[] }>('GET', '/auth/sessions', { jar: adminJar });
    expect(adminSessions.body.data).toHaveLength(1);
    expect(adminSessions.body.data[0].current).toBe(true);

    const resetSince = lab.relay.messages.length;
    expect((await call('POST', '/auth/password-reset', { body: { email: adminEmail } })).status).toBe(202);
    const token = await tokenMailed(adminEmail, resetSince);
    const confirmed = await call('POST', '/auth/password-reset/confirm', {
      body: { token, password: 'admin passphrase two' },
    });
    expect(confirmed.status).toBe(204);
    expect((await call('GET', '/v1/credits', { jar: adminJar })).status).toBe(401);
    expect((await call('GET', '/v1/credits', { jar: ownerJar })).status).toBe(200);
    expect(
      (await call('POST', '/auth/login', { body: { email: adminEmail, password: 'admin passphrase one' } })).status,
    ).toBe(401);
    await login(adminEmail, 'admin passphrase two');
    await login(owner.email);
  });

  it('refuses the sessions and the sign-in of a suspended account (403 account_suspended), a wrong password still 401', async () => {
    const owner = await signup();
    const jar = await login(owner.email);
    const suspended = await call('POST', `/admin/accounts/${owner.id}/suspend`, {
      body: { reason: 'e2e' },
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(suspended.status).toBeGreaterThanOrEqual(200);
    expect(suspended.status).toBeLessThan(300);
    const refused = await call('GET', '/v1/credits', { jar });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'account_suspended' });
    const signIn = await call('POST', '/auth/login', { body: { email: owner.email, password: PASSWORD } });
    expect(signIn.status).toBe(403);
    expect(signIn.body).toMatchObject({ code: 'account_suspended' });
    expect(signIn.headers.getSetCookie()).toEqual([]);
    const wrong = await call('POST', '/auth/login', { body: { email: owner.email, password: 'not the password xx' } });
    expect(wrong.status).toBe(401);
  });
}
