import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startLab } from '../lab';
import { DEFAULT_SCENARIO } from '../lab/scenario';
import { E2E_CLUSTER_ENV } from '../support/cluster-env';
import { DIST, runGatewayToExit, startGatewayProcess, type RunningProcess } from '../support/processes';
import { createTestDatabase, flushRedisPrefix, TEST_REDIS_URL, type TestDatabase } from '../support/services';

jest.setTimeout(60_000);

const workDir = () => mkdtempSync(join(tmpdir(), 'mailguard-e2e-'));
/** Every key these gateways write lives under this prefix, removed at the end. */
const REDIS_PREFIX = `mghealth:${randomBytes(6).toString('hex')}:`;

afterAll(() => flushRedisPrefix(REDIS_PREFIX));

async function json(response: Response): Promise<Record<string, unknown>> {
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  return (await response.json()) as Record<string, unknown>;
}

describe('gateway on real Postgres and Redis', () => {
  let database: TestDatabase;
  let gateway: RunningProcess;

  beforeAll(async () => {
    database = await createTestDatabase();
    gateway = await startGatewayProcess(
      { DATABASE_URL: database.url, REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX },
      workDir(),
    );
  });

  afterAll(async () => {
    await gateway?.stop();
    await database?.drop();
  });

  it('is live and ready, and names the servers it uses', async () => {
    const live = await fetch(`${gateway.url}/health/live`);
    expect(live.status).toBe(200);
    expect(await json(live)).toEqual({ status: 'ok' });
    const ready = await fetch(`${gateway.url}/health/ready`);
    expect(ready.status).toBe(200);
    // The prober's standing is there too; with no smtp-worker beside this gateway, no self-check ran yet.
    expect(await json(ready)).toEqual({
      status: 'ok',
      database: 'postgres',
      redis: 'redis',
      prober: expect.objectContaining({
        status: 'ok',
        checkedAt: null,
        egress: [expect.objectContaining({ id: 'default' })],
      }),
    });
  });

  it('sends the security headers on every response (helmet’s, worked out once by Nest)', async () => {
    for (const path of ['/health/live', '/v1/no-such-route', '/docs']) {
      const response = await fetch(`${gateway.url}${path}`);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(response.headers.get('strict-transport-security')).toMatch(/^max-age=/);
      expect(response.headers.get('x-powered-by')).toBeNull();
    }
  });

  it('applied the migrations to its database', async () => {
    const tables = await database.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name = 'migrations'",
    );
    expect(tables).toEqual([{ table_name: 'migrations' }]);
  });

  it('puts an X-Request-Id on every response and keeps a sane one the client sent', async () => {
    const generated = await fetch(`${gateway.url}/health/live`);
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const kept = await fetch(`${gateway.url}/health/live`, { headers: { 'X-Request-Id': 'client-abc.123' } });
    expect(kept.headers.get('x-request-id')).toBe('client-abc.123');
    const replaced = await fetch(`${gateway.url}/health/live`, { headers: { 'X-Request-Id': 'x'.repeat(500) } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const missing = await fetch(`${gateway.url}/v1/nothing-here`);
    expect(missing.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers unknown routes with 404 and an { error } body, inside and outside /v1', async () => {
    for (const path of ['/v1/nothing-here', '/nothing-here', '/health/unknown']) {
      const response = await fetch(`${gateway.url}${path}`);
      expect(response.status).toBe(404);
      expect(await json(response)).toEqual({ error: `No route for GET ${path}`, code: 'not_found' });
    }
    const wrongMethod = await fetch(`${gateway.url}/health/live`, { method: 'DELETE' });
    expect(wrongMethod.status).toBe(404);
    expect(await json(wrongMethod)).toHaveProperty('error');
  });

  it('answers a malformed JSON body with 400 and a bad percent-encoding with 400, never a stack trace', async () => {
    const badJson = await fetch(`${gateway.url}/v1/anything`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":',
    });
    expect(badJson.status).toBe(400);
    const body = await json(badJson);
    expect(body).toEqual({ error: expect.any(String), code: 'bad_request' });
    expect(body.error).toMatch(/not valid JSON/);
    const badPath = await fetch(`${gateway.url}/v1/email-validation/%E0%A4%A`);
    // Refused by the router before any hook or filter: in the API's shape all the same, with the security headers.
    expect([badPath.status, await json(badPath)]).toEqual([
      400,
      { error: 'The URL holds a malformed percent-encoding', code: 'bad_request' },
    ]);
    expect(badPath.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('answers an over-large body with 413 { error }', async () => {
    const response = await fetch(`${gateway.url}/v1/anything`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ blob: 'x'.repeat(2 * 1024 * 1024) }),
    });
    expect(response.status).toBe(413);
    expect(await json(response)).toHaveProperty('error');
  });

  it('writes structured JSON log lines, one per request under its id, without the API key', async () => {
    const response = await fetch(`${gateway.url}/v1/nothing-here?page=2`, {
      headers: { 'X-API-Key': 'mg_live_e2eSECRET' },
    });
    await response.text();
    const id = response.headers.get('x-request-id');
    const requestLine = () =>
      gateway
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { service: string; req?: { id: string } })
        .find((line) => line.req?.id === id);
    // The line is written once the response has ended: it may reach the pipe after the answer.
    while (!requestLine()) await once(gateway.child.stdout!, 'data');
    expect(requestLine()).toMatchObject({
      service: 'gateway',
      level: 40,
      msg: 'request completed',
      req: { id, method: 'GET', url: '/v1/nothing-here?page=2' },
      res: { statusCode: 404 },
      responseTime: expect.any(Number),
    });
    expect(gateway.output()).not.toContain('e2eSECRET');
  });

  it('stops cleanly on SIGTERM', async () => {
    const other = await startGatewayProcess(
      { DATABASE_URL: database.url, REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX },
      workDir(),
    );
    expect(await other.stop('SIGTERM')).toBe(0);
  });
});

describe('gateway on embedded defaults', () => {
  it('runs with no DATABASE_URL or REDIS_URL: PGlite in ./data and in-process queues', async () => {
    const cwd = workDir();
    const lab = await startLab(DEFAULT_SCENARIO);
    const gateway = await startGatewayProcess({ ...lab.env, SMTP_HELO_NAME: E2E_CLUSTER_ENV.SMTP_HELO_NAME }, cwd);
    try {
      const ready = await fetch(`${gateway.url}/health/ready`);
      expect(ready.status).toBe(200);
      expect(await json(ready)).toEqual({
        status: 'ok',
        database: 'embedded',
        redis: 'in-process',
        prober: expect.objectContaining({
          status: expect.stringMatching(/^(ok|degraded|blocked)$/),
          egress: [expect.objectContaining({ id: 'default' })],
        }),
      });
      expect(existsSync(join(cwd, 'data', 'PG_VERSION'))).toBe(true);

      // A paid check, then the same one from the cache (its own charging statement), on PGlite.
      const signup = await fetch(`${gateway.url}/v1/accounts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'owner@catchall.test' }),
      });
      expect(signup.status).toBe(201);
      const { apiKey, account } = (await signup.json()) as { apiKey: string; account: { credits: number } };
      const check = () =>
        fetch(`${gateway.url}/v1/email-validation/jane@acme.test`, { headers: { 'X-API-Key': apiKey } });
      const answers = [await check(), await check()];
      expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
      expect(((await answers[1].json()) as { cached: boolean }).cached).toBe(true);
      expect(answers[1].headers.get('x-credits-remaining')).toBe(String(account.credits - 2));
    } finally {
      expect(await gateway.stop()).toBe(0);
      await lab.stop();
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it('without the optional PGlite packages (an --omit=optional install) exits with one line saying what to do', async () => {
    // The build beside a node_modules that has every installed package but @electric-sql's.
    const install = workDir();
    try {
      cpSync(DIST, join(install, 'dist'), { recursive: true });
      const modules = resolve(__dirname, '../../node_modules');
      mkdirSync(join(install, 'node_modules'));
      for (const name of readdirSync(modules).filter((entry) => entry !== '@electric-sql')) {
        symlinkSync(join(modules, name), join(install, 'node_modules', name));
      }
      const result = await runGatewayToExit({}, install, join(install, 'dist/apps/gateway/src/main.js'));
      expect(result.code).toBe(1);
      const lines = result.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^mailguard gateway: failed to start: DATABASE_URL is unset.*@electric-sql\/pglite.*--omit=optional/,
      );
    } finally {
      rmSync(install, { recursive: true, force: true });
    }
  });
});

describe('readiness when a server is down', () => {
  it('answers 503 { error } while Postgres does not answer, and stays live', async () => {
    const gateway = await startGatewayProcess({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' }, workDir());
    try {
      const ready = await fetch(`${gateway.url}/health/ready`);
      expect(ready.status).toBe(503);
      expect(await json(ready)).toEqual({ error: 'The database is unavailable; retry shortly', code: 'unavailable' });
      expect((await fetch(`${gateway.url}/health/live`)).status).toBe(200);
    } finally {
      await gateway.stop();
    }
  });

  it('answers 503 { error } while Redis does not answer', async () => {
    const database = await createTestDatabase();
    const gateway = await startGatewayProcess(
      { DATABASE_URL: database.url, REDIS_URL: 'redis://127.0.0.1:1', REDIS_PREFIX },
      workDir(),
    );
    try {
      const ready = await fetch(`${gateway.url}/health/ready`);
      expect(ready.status).toBe(503);
      expect(await json(ready)).toEqual({ error: 'Redis is unavailable; retry shortly', code: 'unavailable' });
    } finally {
      await gateway.stop();
      await database.drop();
    }
  });
});

describe('bad configuration', () => {
  it.each([
    ['PORT', 'abc'],
    ['DNS_SERVERS', 'nonsense'],
    ['SMTP_TIMEOUT_MS', '-5'],
    ['ALLOW_PRIVATE_MX', 'maybe'],
    ['DATABASE_URL', 'mysql://x@y/z'],
  ])('exits non-zero with one line naming %s', async (name, value) => {
    const result = await runGatewayToExit({ [name]: value }, workDir());
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(name);
  });

  it('exits non-zero with one line naming METRICS_PORT when another process holds it', async () => {
    const holder = createServer();
    holder.listen(0, '127.0.0.1');
    await once(holder, 'listening');
    try {
      const port = String((holder.address() as AddressInfo).port);
      const result = await runGatewayToExit({ METRICS_PORT: port }, workDir());
      expect(result.code).toBe(1);
      expect(result.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(new RegExp(`^mailguard gateway: failed to start: METRICS_PORT ${port}: .*EADDRINUSE`)),
      ]);
    } finally {
      holder.close();
    }
  });
});
