import { mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { startLab, type Lab } from '../lab';
import { loadScenario } from '../lab/scenario';
import { apiClient, signupAt, type ApiCall } from '../support/api-client';
import { E2E_CLUSTER_ENV } from '../support/cluster-env';
import { startGatewayProcess, type RunningProcess } from '../support/processes';

/**
 * What a newcomer meets first, on the service as `npm start` runs it (one process, embedded
 * defaults): `/` leads to the dashboard, browsers find an icon, the files they load come
 * compressed, and a request without a field says which one in one sentence.
 */
jest.setTimeout(60_000);

let lab: Lab;
let gateway: RunningProcess;
let api: ApiCall;

beforeAll(async () => {
  lab = await startLab(loadScenario());
  gateway = await startGatewayProcess(
    { ...lab.env, ...E2E_CLUSTER_ENV },
    mkdtempSync(join(tmpdir(), 'mailguard-front-')),
  );
  api = apiClient(gateway.url);
});

afterAll(async () => {
  await gateway?.stop();
  await lab?.stop();
});

/** One raw GET: status, headers and the bytes as sent (fetch would follow redirects and decode). */
function get(path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>(
    (resolve, reject) => {
      const req = request(`${gateway.url}${path}`, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      });
      req.on('error', reject);
      req.end();
    },
  );
}

it('sends a browser at / to the dashboard, and /favicon.ico to its icon', async () => {
  expect(await get('/')).toMatchObject({ status: 302, headers: { location: '/dashboard/' } });
  const favicon = await get('/favicon.ico');
  expect(favicon).toMatchObject({ status: 301, headers: { location: '/dashboard/favicon.svg' } });
  const icon = await get('/dashboard/favicon.svg');
  expect([icon.status, icon.headers['content-type']]).toEqual([200, 'image/svg+xml']);
  expect((await get('/dashboard/')).body.toString()).toContain('href="favicon.svg"');
});

it.each(['/dashboard/main.js', '/v1/widget/widget.js', '/docs/assets/swagger-ui-bundle.js'])(
  'sends %s compressed to a browser that accepts it (brotli or gzip), and plain to one that does not',
  async (path) => {
    const plain = await get(path);
    expect([plain.status, plain.headers['content-encoding']]).toEqual([200, undefined]);
    for (const [accepted, encoding, decode] of [
      ['gzip, deflate, br', 'br', brotliDecompressSync],
      ['gzip, deflate', 'gzip', gunzipSync],
    ] as const) {
      const packed = await get(path, { 'Accept-Encoding': accepted });
      expect([packed.status, packed.headers['content-encoding']]).toEqual([200, encoding]);
      expect(packed.body.length).toBeLessThan(plain.body.length / 2);
      expect(decode(packed.body).equals(plain.body)).toBe(true);
    }
  },
);

it('leaves API answers uncompressed', async () => {
  const answer = await get('/health/live', { 'Accept-Encoding': 'gzip' });
  expect(answer.headers['content-encoding']).toBeUndefined();
});

it.each([
  ['JSON without the field', 'application/json', '{"email":"jane@acme.test"}'],
  ['an empty JSON object', 'application/json', '{}'],
  ['an empty body labelled JSON', 'application/json', ''],
  ['a body that is not JSON', 'text/plain', 'jane@acme.test'],
])('answers a batch sent as %s: "emails is required", in one sentence', async (_what, type, body) => {
  const { apiKey } = await signupAt(api, 'catchall.test');
  const response = await fetch(`${gateway.url}/v1/email-validation/batch`, {
    method: 'POST',
    headers: { 'X-API-Key': apiKey, 'Content-Type': type },
    body,
  });
  expect([response.status, await response.json()]).toEqual([400, { error: 'emails is required', code: 'bad_request' }]);
});

it('refuses a chunked body over the JSON limit whatever its type, without reading it to its end', async () => {
  const total = 8 * 1024 * 1024;
  // The answer (413), or the connection closed with the body unsent: either way not read to its end.
  const outcome = await new Promise<{ status?: number; body?: string; sent: number }>((resolve) => {
    let sent = 0;
    const req = request(`${gateway.url}/v1/accounts`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain', 'Transfer-Encoding': 'chunked' },
    });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode, body, sent }));
    });
    req.on('error', () => resolve({ sent }));
    const more = (): void => {
      while (sent < total && !req.destroyed) {
        sent += 64 * 1024;
        if (!req.write(Buffer.alloc(64 * 1024, 'a'))) return void req.once('drain', more);
      }
      req.end();
    };
    more();
  });
  if (outcome.status === undefined) expect(outcome.sent).toBeLessThan(total);
  else {
    expect(outcome.status).toBe(413);
    expect(JSON.parse(outcome.body ?? '')).toEqual({ error: expect.any(String), code: 'payload_too_large' });
  }
});

it('names the API, the docs, the dashboard and the metrics in its start-up line', () => {
  const line = gateway
    .output()
    .split('\n')
    .find((text) => text.startsWith('MailGuard gateway listening on'));
  for (const where of ['/v1', '/docs', '/dashboard/', '/health/ready', 'metrics on http://'])
    expect([where, line?.includes(where)]).toEqual([where, true]);
});
