import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { startLab, type Lab } from '../lab';
import { loadScenario } from '../lab/scenario';
import { apiClient, type ApiCall } from '../support/api-client';
import { E2E_CLUSTER_ENV } from '../support/cluster-env';
import { startGatewayProcess, startWorkerProcess, type RunningProcess } from '../support/processes';
import { createTestDatabase, flushRedisPrefix, TEST_REDIS_URL, type TestDatabase } from '../support/services';

/**
 * The single check's fast path (apps/gateway/src/validation/fast-path.ts) against the Nest route it
 * stands in for: two gateways on the same Postgres and Redis, one with the fast path and one
 * without (HTTP_FAST_PATH=false), get the same situations, each with an account or key of its own
 * in the same state, and must answer them alike — status, every header, body bytes, request log
 * line and metrics.
 */
jest.setTimeout(120_000);

const prefix = `mgtest:${randomBytes(6).toString('hex')}:`;
const RATE_LIMIT = 5;
let lab: Lab;
let database: TestDatabase;
let redis: Redis;
let workers: RunningProcess[] = [];
const gateways = {} as Record<Side, RunningProcess>;
const apis = {} as Record<Side, ApiCall>;

type Side = 'fast' | 'nest';
const SIDES: Side[] = ['fast', 'nest'];
/** Requests sent to each gateway with a request id of this suite's (`fast-path-…`), whose log lines are compared. */
const logged: Record<Side, number> = { fast: 0, nest: 0 };

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** One request as sent on the wire, and the answer with every header as received. */
function raw(side: Side, path: string, headers: Record<string, string>): Promise<RawAnswer> {
  const url = new URL(path, gateways[side].url);
  if (headers['X-Request-Id']?.startsWith('fast-path-')) logged[side]++;
  return new Promise((resolve, reject) => {
    const req = request(url, { headers, agent: false }, (res) => {
      const received: Record<string, string> = {};
      for (let i = 0; i < res.rawHeaders.length; i += 2) {
        const name = res.rawHeaders[i].toLowerCase();
        received[name] = name in received ? `${received[name]}, ${res.rawHeaders[i + 1]}` : res.rawHeaders[i + 1];
      }
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: received, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** What may differ between two answers to the same situation: the clock, and seconds that can tick between them. */
function comparable({ status, headers, body }: RawAnswer): RawAnswer {
  const kept = { ...headers };
  delete kept.date;
  for (const name of ['ratelimit-reset', 'retry-after'])
    if (name in kept) kept[name] = /^\d+$/.test(kept[name]) ? '<seconds>' : kept[name];
  return { status, headers: kept, body };
}

/** The same request, with the same request id, to both gateways; `keys` names each side's key. */
async function both(path: string, keys: Record<Side, string | null>, requestId: string): Promise<RawAnswer[]> {
  const answers: RawAnswer[] = [];
  for (const side of SIDES)
    answers.push(
      await raw(side, path, {
        'X-Request-Id': requestId,
        ...(keys[side] ? { 'X-API-Key': keys[side] as string } : {}),
      }),
    );
  return answers;
}

function expectAlike([fast, nest]: RawAnswer[]): void {
  expect(comparable(fast)).toEqual(comparable(nest));
}

interface Account {
  apiKey: string;
  id: string;
}

/** An account for each side (a work address: 2,500 credits each), signed up on its own gateway. */
async function accounts(): Promise<Record<Side, Account>> {
  const made = {} as Record<Side, Account>;
  for (const side of SIDES) {
    const response = await apis[side]<{ apiKey: string; account: { id: string } }>('POST', '/v1/accounts', {
      body: { email: `owner.${randomBytes(4).toString('hex')}@catchall.test` },
    });
    expect(response.status).toBe(201);
    made[side] = { apiKey: response.body.apiKey, id: response.body.account.id };
  }
  return made;
}

async function createKey(side: Side, account: Account, scope: string): Promise<{ id: string; key: string }> {
  const response = await apis[side]<{ id: string; key: string }>('POST', '/v1/keys', {
    key: account.apiKey,
    body: { name: `${scope} key`, scope },
  });
  expect(response.status).toBe(201);
  return response.body;
}

const keysOf = (made: Record<Side, Account>): Record<Side, string> => ({
  fast: made.fast.apiKey,
  nest: made.nest.apiKey,
});

async function ledger(accountId: string): Promise<{ charges: number; usage: number }> {
  const [row] = await database.query<{ charges: number; usage: number }>(
    `SELECT (SELECT count(*)::int FROM credit_transactions WHERE account_id = $1 AND kind = 'charge') AS charges,
            (SELECT count(*)::int FROM verifications WHERE account_id = $1) AS usage`,
    [accountId],
  );
  return row;
}

const CHECK = '/v1/email-validation/';
const ADDRESS = 'john.doe@acme.test';

beforeAll(async () => {
  lab = await startLab(loadScenario());
  database = await createTestDatabase();
  redis = new Redis(TEST_REDIS_URL);
  const env = {
    ...lab.env,
    DATABASE_URL: database.url,
    REDIS_URL: TEST_REDIS_URL,
    REDIS_PREFIX: prefix,
    ...E2E_CLUSTER_ENV,
    RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT),
    LOG_LEVEL: 'info',
  };
  const dir = () => mkdtempSync(join(tmpdir(), 'mailguard-fast-path-'));
  [gateways.fast, gateways.nest, ...workers] = await Promise.all([
    startGatewayProcess(env, dir()),
    startGatewayProcess({ ...env, HTTP_FAST_PATH: 'false' }, dir()),
    ...(['dns-worker', 'smtp-worker', 'scoring-worker'] as const).map((kind) => startWorkerProcess(kind, env, dir())),
  ]);
  for (const side of SIDES) apis[side] = apiClient(gateways[side].url);
});

afterAll(async () => {
  await Promise.all([...Object.values(gateways), ...workers].map((process) => process.stop()));
  redis?.disconnect();
  await database?.drop();
  await lab?.stop();
  await flushRedisPrefix(prefix);
});

// In order: the uncached check leaves the address cached for the ones after it.
describe('GET /v1/email-validation/:email with and without the fast path', () => {
  it('answers an uncached check alike (the pipeline, charged once)', async () => {
    const made = await accounts();
    const answers: RawAnswer[] = [];
    for (const side of SIDES) {
      // Each side checks the address uncached: what the other side's check cached is dropped first.
      await redis.del(`${prefix}result:${ADDRESS}`);
      answers.push(
        await raw(side, `${CHECK}${ADDRESS}`, { 'X-Request-Id': 'fast-path-uncached', 'X-API-Key': made[side].apiKey }),
      );
    }
    // What one check of the address took, and when, is its own.
    const steady = (answer: RawAnswer) => {
      const body = JSON.parse(answer.body) as { verifiedAt: string; checks: { smtp: { durationMs: number } } };
      expect(answer.headers['content-length']).toBe(String(Buffer.byteLength(answer.body)));
      body.verifiedAt = '<time>';
      body.checks.smtp.durationMs = 0;
      const headers = { ...answer.headers };
      delete headers['content-length'];
      return { ...answer, headers, body: JSON.stringify(body) };
    };
    expect(answers[0].status).toBe(200);
    expect(JSON.parse(answers[0].body)).toMatchObject({ email: ADDRESS, status: 'valid', cached: false });
    expectAlike(answers.map(steady));
    for (const side of SIDES) expect(await ledger(made[side].id)).toEqual({ charges: 1, usage: 1 });
  });

  it('answers a cached result alike, byte for byte, charged once with its own ledger and usage rows', async () => {
    const made = await accounts();
    const answers = await both(`${CHECK}${encodeURIComponent(ADDRESS)}`, keysOf(made), 'fast-path-cached');
    expect(answers[0].status).toBe(200);
    expect(JSON.parse(answers[0].body)).toMatchObject({ email: ADDRESS, status: 'valid', cached: true });
    expect(answers[0].headers).toMatchObject({
      'x-credits-remaining': '2499',
      'ratelimit-limit': String(RATE_LIMIT),
      'ratelimit-remaining': String(RATE_LIMIT - 1),
      'x-request-id': 'fast-path-cached',
      'x-content-type-options': 'nosniff',
      'content-type': 'application/json; charset=utf-8',
    });
    expectAlike(answers);
    for (const side of SIDES) expect(await ledger(made[side].id)).toEqual({ charges: 1, usage: 1 });
    // The stored result as it was, marked as cached: the same bytes as serialising it again would give…
    const stored = (await redis.get(`${prefix}result:${ADDRESS}`)) as string;
    expect(answers[0].body).toBe(JSON.stringify({ ...JSON.parse(stored), cached: true }));
    // …and the usage row holds the answer served, its columns taken from it.
    const [usage] = await database.query<Record<string, unknown>>(
      'SELECT email, kind, status, reason, result FROM verifications WHERE account_id = $1',
      [made.fast.id],
    );
    const body = JSON.parse(answers[0].body) as Record<string, unknown>;
    expect(usage).toEqual({
      email: body.email,
      kind: 'single',
      status: body.status,
      reason: body.reason,
      result: body,
    });
  });

  it('answers 401 alike: no key, an unknown key, and a key revoked on the other gateway (at once)', async () => {
    expectAlike(await both(`${CHECK}${ADDRESS}`, { fast: null, nest: null }, 'fast-path-no-key'));
    const unknown = `mg_live_${'x'.repeat(32)}`;
    expectAlike(await both(`${CHECK}${ADDRESS}`, { fast: unknown, nest: unknown }, 'fast-path-unknown-key'));

    const made = await accounts();
    const keys = {
      fast: await createKey('fast', made.fast, 'verify'),
      nest: await createKey('nest', made.nest, 'verify'),
    };
    // Each gateway has looked its key up (and keeps it for a few seconds)…
    for (const side of SIDES)
      expect((await raw(side, `${CHECK}${ADDRESS}`, { 'X-API-Key': keys[side].key })).status).toBe(200);
    // …and the key is revoked on the other one.
    const other: Record<Side, Side> = { fast: 'nest', nest: 'fast' };
    for (const side of SIDES)
      expect((await apis[other[side]]('DELETE', `/v1/keys/${keys[side].id}`, { key: made[side].apiKey })).status).toBe(
        204,
      );
    const answers = await both(`${CHECK}${ADDRESS}`, { fast: keys.fast.key, nest: keys.nest.key }, 'fast-path-revoked');
    expect(answers[0].status).toBe(401);
    expect(JSON.parse(answers[0].body)).toEqual({ error: 'Invalid or revoked API key', code: 'unauthorized' });
    expectAlike(answers);
  });

  it('answers 402 alike when the balance is spent, and charges nothing', async () => {
    const made = await accounts();
    for (const side of SIDES) await database.setBalance(made[side].id, 0);
    const answers = await both(`${CHECK}${ADDRESS}`, keysOf(made), 'fast-path-402');
    expect(answers[0].status).toBe(402);
    expect(answers[0].headers['x-credits-remaining']).toBe('0');
    expectAlike(answers);
    for (const side of SIDES) expect(await ledger(made[side].id)).toEqual({ charges: 1, usage: 0 });
  });

  it('answers 403 alike for a key whose scope does not allow checks', async () => {
    const made = await accounts();
    const keys = {
      fast: await createKey('fast', made.fast, 'lists'),
      nest: await createKey('nest', made.nest, 'lists'),
    };
    const answers = await both(`${CHECK}${ADDRESS}`, { fast: keys.fast.key, nest: keys.nest.key }, 'fast-path-403');
    expect(answers[0].status).toBe(403);
    expectAlike(answers);
  });

  it('answers 429 alike past the rate limit, and 400 alike for an address over 1,024 characters', async () => {
    const made = await accounts();
    for (let i = 1; i < RATE_LIMIT; i++)
      expectAlike(await both(`${CHECK}${ADDRESS}`, keysOf(made), `fast-path-within-${i}`));
    expectAlike(await both(`${CHECK}${'a'.repeat(1100)}@acme.test`, keysOf(made), 'fast-path-400'));
    const answers = await both(`${CHECK}${ADDRESS}`, keysOf(made), 'fast-path-429');
    expect(answers[0].status).toBe(429);
    expect(answers[0].headers['retry-after']).toMatch(/^\d+$/);
    expectAlike(answers);
  });

  it('writes the same request log lines and counts the same metrics', async () => {
    const lines = (side: Side) =>
      gateways[side]
        .output()
        .split('\n')
        .filter((line) => line.includes('"fast-path-'))
        .map((line) => {
          const {
            time: _time,
            pid: _pid,
            hostname: _hostname,
            responseTime,
            ...rest
          } = JSON.parse(line) as Record<string, unknown>;
          expect(typeof responseTime).toBe('number');
          return rest;
        });
    // A line is written as the response closes, which may be after the client has read it.
    for (const side of SIDES)
      while (lines(side).length < logged[side])
        await once(gateways[side].child.stdout as NodeJS.ReadableStream, 'data');
    expect(lines('fast').length).toBeGreaterThanOrEqual(10);
    expect(lines('fast')).toEqual(lines('nest'));

    const metrics = async (side: Side) =>
      (await (await fetch(gateways[side].metrics)).text())
        .split('\n')
        .filter(
          (line) =>
            /^mailguard_(http_requests_total|http_request_duration_seconds_count|result_cache_requests_total|credits_total|http_fast_path_total)\b/.test(
              line,
            ) && !line.includes('route="/metrics"'),
        );
    const [fast, nest] = [await metrics('fast'), await metrics('nest')];
    const served = (text: string[]) => text.find((line) => line.startsWith('mailguard_http_fast_path_total'));
    // The fast path did answer its side's checks (else the comparisons above would prove nothing)…
    const count = (line: string | undefined) => Number(line?.split(' ').at(-1));
    expect(count(served(fast))).toBeGreaterThanOrEqual(10);
    expect(count(served(nest))).toBe(0);
    // …and every other counter agrees.
    expect(fast.filter((line) => line !== served(fast))).toEqual(nest.filter((line) => line !== served(nest)));
    expect(fast.some((line) => line.includes('route="/v1/email-validation/:email"'))).toBe(true);
  });
});
