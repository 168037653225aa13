import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { rawRequest } from '../fuzz/http';
import { fields, JSON_BODIES, withField, wrongType, type JsonBody } from '../fuzz/json-bodies';
import { startLab, type Lab } from '../lab';
import { loadScenario } from '../lab/scenario';
import { apiClient, type ApiCall } from '../support/api-client';
import { holdings, startGatewayProcess, type RunningProcess } from '../support/processes';
import { createTestDatabase, type TestDatabase } from '../support/services';

/**
 * Hostile requests never end the gateway (issue 15): each is refused with 400 {error, code}, the
 * process keeps serving, and a refused upload leaves no temporary file behind. The gateway runs
 * with a TMPDIR of its own so that what it leaves there can be counted.
 */
jest.setTimeout(60_000);

let lab: Lab;
let database: TestDatabase;
let gateway: RunningProcess;
let api: ApiCall;
let key: string;
const uploads = mkdtempSync(join(tmpdir(), 'mailguard-hostile-tmp-'));

beforeAll(async () => {
  lab = await startLab(loadScenario());
  database = await createTestDatabase();
  gateway = await startGatewayProcess(
    { ...lab.env, DATABASE_URL: database.url, TMPDIR: uploads, SIGNUP_LIMIT_PER_IP_HOUR: '1000' },
    mkdtempSync(join(tmpdir(), 'mailguard-hostile-')),
  );
  api = apiClient(gateway.url);
  const signup = await api<{ apiKey: string }>('POST', '/v1/accounts', { body: { email: 'owner@catchall.test' } });
  key = signup.body.apiKey;
});

afterAll(async () => {
  await gateway?.stop();
  await database?.drop();
  await lab?.stop();
});

/** A raw request, so that bodies no client library would send can be sent. */
function raw(
  path: string,
  headers: Record<string, string>,
  body: string,
  method = 'POST',
): Promise<{ status: number; body: string }> {
  return new Promise((done, fail) => {
    const url = new URL(path, gateway.url);
    const req = request(
      url,
      { method, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => done({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', fail);
    req.end(body);
  });
}

async function stillServing(): Promise<void> {
  expect(gateway.child.exitCode).toBeNull();
  expect((await api('GET', '/health/live')).status).toBe(200);
}

describe('POST /v1/lists with a broken multipart body', () => {
  it('a file part that ends without its closing boundary: 400, the gateway goes on, no temporary file stays', async () => {
    const body = '------fzb\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\nemail\nx\r\n';
    for (let i = 0; i < 3; i++) {
      const response = await raw(
        '/v1/lists',
        { 'x-api-key': key, 'content-type': 'multipart/form-data; boundary=----fzb' },
        body,
      );
      expect(response.status).toBe(400);
      expect(JSON.parse(response.body)).toMatchObject({
        code: 'bad_request',
        error: expect.stringContaining('multipart'),
      });
    }
    await stillServing();
    expect(holdings(gateway, uploads).stagedUploads()).toBe(0);
    expect(gateway.output()).not.toMatch(/unhandled|uncaught/i);
  });

  it('a file part under another name, cut short (found by the fuzz): 400, and no stream fails unheard', async () => {
    const body = '--b\r\nContent-Disposition: form-data; name="attachment"; filename="b.csv"\r\n\r\nemail\nx';
    const response = await raw(
      '/v1/lists',
      { 'x-api-key': key, 'content-type': 'multipart/form-data; boundary=b' },
      body,
    );
    expect(response.status).toBe(400);
    await stillServing();
    expect(gateway.output()).not.toMatch(/unhandled|uncaught/i);
  });

  it('multipart/form-data without a boundary: 400 at once', async () => {
    const response = await raw(
      '/v1/lists',
      { 'x-api-key': key, 'content-type': 'multipart/form-data' },
      'email\nx@y.test\n',
    );
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toMatchObject({ code: 'bad_request' });
    await stillServing();
    expect(holdings(gateway, uploads).stagedUploads()).toBe(0);
  });
});

const NUL = '\u0000';
const multipart = (parts: Array<{ name: string; filename?: string; body: string }>) => ({
  headers: { 'content-type': 'multipart/form-data; boundary=b' },
  body: `${parts.map((part) => `--b\r\nContent-Disposition: form-data; name="${part.name}"${part.filename ? `; filename="${part.filename}"` : ''}\r\n\r\n${part.body}\r\n`).join('')}--b--\r\n`,
});
const csv = (text: string, extra: Array<{ name: string; body: string }> = []) =>
  multipart([...extra, { name: 'file', filename: 'a.csv', body: text }]);

describe('one input policy at every edge: 400 {error, code} at once, nothing charged', () => {
  async function balance(): Promise<number> {
    return (await api<{ balance: number }>('GET', '/v1/credits', { key })).body.balance;
  }

  it.each<[string, () => Promise<{ status: number; body: string }>]>([
    [
      'a NUL in a key name',
      () =>
        raw(
          '/v1/keys',
          { 'x-api-key': key, 'content-type': 'application/json' },
          JSON.stringify({ name: `k${NUL}`, scope: 'full' }),
        ),
    ],
    [
      'a lone surrogate in a key name',
      () =>
        raw('/v1/keys', { 'x-api-key': key, 'content-type': 'application/json' }, '{"name":"k\\ud800","scope":"full"}'),
    ],
    [
      'a NUL in a sign-up name',
      () =>
        raw(
          '/v1/accounts',
          { 'content-type': 'application/json' },
          JSON.stringify({ email: 'someone.new@catchall.test', name: `n${NUL}` }),
        ),
    ],
    [
      'a NUL in a sign-up address',
      () =>
        raw(
          '/v1/accounts',
          { 'content-type': 'application/json' },
          JSON.stringify({ email: `some${NUL}one@catchall.test` }),
        ),
    ],
    [
      'a NUL in a widget message',
      () =>
        raw(
          '/v1/widget/settings',
          { 'x-api-key': key, 'content-type': 'application/json' },
          JSON.stringify({ defaults: { messages: { invalid: `x${NUL}` } } }),
          'PUT',
        ),
    ],
    [
      'JSON nested 2,000 deep at sign-up',
      () => raw('/v1/accounts', { 'content-type': 'application/json' }, `${'{"a":'.repeat(2000)}1${'}'.repeat(2000)}`),
    ],
    [
      'JSON nested 2,000 deep at the keyless widget check',
      () =>
        raw(
          '/v1/widget/verify',
          { 'content-type': 'application/json' },
          `${'{"email":'.repeat(2000)}1${'}'.repeat(2000)}`,
        ),
    ],
    [
      'a NUL in a CSV field',
      () =>
        raw(
          '/v1/lists',
          { 'x-api-key': key, ...csv(`email,note\nx@acme.test,a${NUL}b\n`).headers },
          csv(`email,note\nx@acme.test,a${NUL}b\n`).body,
        ),
    ],
    [
      'a NUL in a CSV header',
      () =>
        raw(
          '/v1/lists',
          { 'x-api-key': key, ...csv(`email,no${NUL}te\nx@acme.test,ab\n`).headers },
          csv(`email,no${NUL}te\nx@acme.test,ab\n`).body,
        ),
    ],
    [
      'a NUL in a list name',
      () =>
        raw(
          '/v1/lists',
          { 'x-api-key': key, ...csv('email\nx@acme.test\n').headers },
          csv('email\nx@acme.test\n', [{ name: 'name', body: `l${NUL}` }]).body,
        ),
    ],
    [
      'a NUL in a webhookUrl',
      () =>
        raw(
          '/v1/lists',
          { 'x-api-key': key, ...csv('email\nx@acme.test\n').headers },
          csv('email\nx@acme.test\n', [{ name: 'webhookUrl', body: `https://hooks${NUL}.example.com/` }]).body,
        ),
    ],
    [
      'a CSV of 1,001 columns',
      () =>
        raw(
          '/v1/lists',
          { 'x-api-key': key, ...csv('').headers },
          csv(`email${',c'.repeat(1000)}\nx@acme.test\n`).body,
        ),
    ],
  ])('%s', async (_, send) => {
    const before = await balance();
    const response = await send();
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toEqual({ error: expect.any(String), code: 'bad_request' });
    expect(await balance()).toBe(before);
    await stillServing();
  });

  it.each([
    ['a list id', `/v1/lists/lst_${encodeURIComponent(NUL)}`],
    ['a key id', `/v1/keys/key_${encodeURIComponent(NUL)}`],
    ['a finder name', `/v1/email-finder?firstName=a${encodeURIComponent(NUL)}&lastName=b&domain=acme.test`],
    ['a domain to look into', `/v1/email-finder/domain/acme${encodeURIComponent(NUL)}.test`],
  ])('a NUL in %s: 400', async (_, path) => {
    const method = path.startsWith('/v1/keys/') ? 'DELETE' : 'GET';
    const response = await api(method, path, { key });
    expect(response).toMatchObject({ status: 400, body: { code: 'bad_request' } });
  });

  it.each([
    ['a NUL', 'a\u0000b@acme.test', true],
    ['a lone surrogate', 'a\uD800b@acme.test', false],
    ['junk after the domain', 'peter@acme.test/evil', true],
  ])(
    'an address to check with %s is invalid_syntax at once, in single, batch and widget checks',
    async (_, email, inPath) => {
      const answers = [
        (await api<{ results: unknown[] }>('POST', '/v1/email-validation/batch', { key, body: { emails: [email] } }))
          .body.results[0],
        (await api('POST', '/v1/widget/verify', { body: { email, deviceId: 'hostile-device-1' } })).body,
      ];
      // A lone surrogate has no UTF-8 form: it cannot be written into a URL at all.
      if (inPath) answers.push((await api('GET', `/v1/email-validation/${encodeURIComponent(email)}`, { key })).body);
      for (const answer of answers)
        expect(answer).toMatchObject({ status: 'invalid', reason: 'invalid_syntax', syntax: false });
    },
  );
});

describe('null, another type, or a required field left out, in every JSON body: 400 {error, code} naming the field', () => {
  interface Key {
    id: string;
    name: string;
    scope: string;
  }
  // An account per body: the table's requests stay under each key's 60 a minute.
  const keys = new Map<JsonBody, string>();
  let keyId: string;
  let signups = 0;

  beforeAll(async () => {
    for (const body of JSON_BODIES) {
      if (body.auth === 'none') continue;
      const signup = await api<{ apiKey: string }>('POST', '/v1/accounts', {
        body: { email: `nulls${++signups}@catchall.test` },
      });
      keys.set(body, signup.body.apiKey);
    }
    const patch = JSON_BODIES.find((body) => body.path.includes(':id')) as JsonBody;
    keyId = (await api<Key>('POST', '/v1/keys', { key: keys.get(patch), body: { name: 'patched', scope: 'lists' } }))
      .body.id;
  });

  const cases = JSON_BODIES.flatMap((body) =>
    fields(body.valid).flatMap(({ path, value }) => {
      const name = `${body.method} ${body.path} ${path.join('.')}`;
      const absent = path.length === 1 && body.required.includes(path[0]);
      return [
        [`${name} null`, body, path, null] as const,
        [`${name} ${JSON.stringify(wrongType(value))}`, body, path, wrongType(value)] as const,
        ...(absent ? [[`${name} left out`, body, path, undefined] as const] : []),
      ];
    }),
  );

  it.each(cases)('%s', async (_, body, path, value) => {
    const response = await api(body.method, body.path.replace(':id', keyId), {
      key: keys.get(body),
      body: withField(body.valid, path, value),
    });
    const field = path.findLast((part) => !/^\d+$/.test(part)) as string;
    expect(response).toMatchObject({
      status: 400,
      body: { error: expect.stringContaining(field), code: 'bad_request' },
    });
    expect(Object.keys(response.body).sort()).toEqual(['code', 'error']);
  });

  it('PATCH /v1/keys/:id with name or scope null: 400, and the key keeps both (was a 500, a not-null violation)', async () => {
    const patch = JSON_BODIES.find((body) => body.path.includes(':id')) as JsonBody;
    const key = keys.get(patch);
    expect(await api('PATCH', `/v1/keys/${keyId}`, { key, body: { name: null } })).toMatchObject({
      status: 400,
      body: { error: expect.stringContaining('name must be a string'), code: 'bad_request' },
    });
    expect(await api('PATCH', `/v1/keys/${keyId}`, { key, body: { scope: null } })).toMatchObject({
      status: 400,
      body: { error: expect.stringContaining('scope must be one of'), code: 'bad_request' },
    });
    const { body } = await api<{ data: Key[] }>('GET', '/v1/keys', { key });
    expect(body.data.find((record) => record.id === keyId)).toMatchObject({ name: 'patched', scope: 'lists' });
    // Left out, a field stays as it is.
    expect(await api('PATCH', `/v1/keys/${keyId}`, { key, body: { name: 'renamed' } })).toMatchObject({
      status: 200,
      body: { name: 'renamed', scope: 'lists' },
    });
    expect(gateway.output()).not.toMatch(/not-null|violates/i);
  });

  it('POST /v1/lists with a JSON body, null fields or not: 400 asking for multipart', async () => {
    const response = await api('POST', '/v1/lists', { key, body: { file: null, name: null, webhookUrl: null } });
    expect(response).toMatchObject({
      status: 400,
      body: { error: expect.stringContaining('multipart/form-data'), code: 'bad_request' },
    });
  });
});

describe('requests Node refuses before any route sees them (found by the fuzz)', () => {
  const send = async (head: string) => {
    const response = await rawRequest(Number(new URL(gateway.url).port), `${head}\r\n`, Buffer.alloc(0), 10_000);
    if ('failure' in response) throw new Error(response.failure);
    return { status: response.status, body: JSON.parse(response.body.toString()) as unknown };
  };

  it.each([
    [
      'a control character in a header value',
      'GET /v1/credits HTTP/1.1\r\nHost: x\r\nX-Request-Id: a\u0001b\r\nConnection: close\r\n',
      400,
      'bad_request',
    ],
    [
      'a header line without a colon',
      'GET /v1/credits HTTP/1.1\r\nHost: x\r\nnonsense\r\nConnection: close\r\n',
      400,
      'bad_request',
    ],
    [
      'Transfer-Encoding beside Content-Length',
      'POST /v1/accounts HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\nContent-Length: 0\r\nConnection: close\r\n',
      400,
      'bad_request',
    ],
    [
      'headers over 16 KB',
      `GET /v1/credits HTTP/1.1\r\nHost: x\r\nX-A: ${'a'.repeat(20_000)}\r\nConnection: close\r\n`,
      431,
      'headers_too_large',
    ],
    [
      'an Expect the server cannot meet',
      'GET /v1/credits HTTP/1.1\r\nHost: x\r\nExpect: x\r\nConnection: close\r\n',
      417,
      'bad_request',
    ],
  ])('%s: {error, code} like every other error', async (_, head, status, code) => {
    expect(await send(head)).toEqual({ status, body: { error: expect.any(String), code } });
    await stillServing();
  });
});

describe('sign-up credits cannot be farmed', () => {
  it('a work address whose mail server cannot be reached earns no work bonus; one a server accepted does', async () => {
    const unreachable = await api<{ account: { credits: number } }>('POST', '/v1/accounts', {
      body: { email: 'farmer@deadmx.test' },
    });
    expect(unreachable.status).toBe(201);
    expect(unreachable.body.account.credits).toBe(1_000);
    const accepted = await api<{ account: { credits: number } }>('POST', '/v1/accounts', {
      body: { email: 'john.doe@acme.test' },
    });
    expect(accepted.body.account.credits).toBe(2_500);
  });
});

describe('the last resort of every process', () => {
  it('an unhandled rejection is logged with its request id and the process goes on', async () => {
    const logger = resolve(__dirname, '../../dist/libs/foundation/logger/src/index.js');
    const script = `
      const { createLogger, requestContext, surviveUnhandled } = require(${JSON.stringify(logger)});
      surviveUnhandled(createLogger({ level: 'info', hashKey: 'guard-test', secrets: [] }, 'guard-test'));
      requestContext.run({ requestId: 'req-forgotten' }, () => { Promise.reject(new Error('nobody awaited me')); });
      setTimeout(() => { process.stdout.write('still here\\n'); }, 50);
    `;
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', script]);
    const line = stdout.split('\n').find((text) => text.includes('unhandled rejection')) ?? '';
    expect(JSON.parse(line)).toMatchObject({
      level: 50,
      requestId: 'req-forgotten',
      err: { message: 'nobody awaited me' },
    });
    expect(stdout).toContain('still here');
  });
});
