import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { startLab, type Lab } from '../lab';
import { loadScenario } from '../lab/scenario';
import { apiClient, type ApiCall } from '../support/api-client';
import { startGatewayProcess, type RunningProcess } from '../support/processes';
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
  gateway = await startGatewayProcess({ ...lab.env, DATABASE_URL: database.url, TMPDIR: uploads, SIGNUP_LIMIT_PER_IP_HOUR: '1000' }, mkdtempSync(join(tmpdir(), 'mailguard-hostile-')));
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
function raw(path: string, headers: Record<string, string>, body: string): Promise<{ status: number; body: string }> {
  return new Promise((done, fail) => {
    const url = new URL(path, gateway.url);
    const req = request(url, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => done({ status: res.statusCode ?? 0, body: text }));
    });
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
      const response = await raw('/v1/lists', { 'x-api-key': key, 'content-type': 'multipart/form-data; boundary=----fzb' }, body);
      expect(response.status).toBe(400);
      expect(JSON.parse(response.body)).toMatchObject({ code: 'bad_request', error: expect.stringContaining('multipart') });
    }
    await stillServing();
    expect(readdirSync(uploads).filter((name) => name.startsWith('mailguard-upload-'))).toEqual([]);
    expect(gateway.output()).not.toMatch(/unhandled|uncaught/i);
  });

  it('multipart/form-data without a boundary: 400 at once', async () => {
    const response = await raw('/v1/lists', { 'x-api-key': key, 'content-type': 'multipart/form-data' }, 'email\nx@y.test\n');
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toMatchObject({ code: 'bad_request' });
    await stillServing();
    expect(readdirSync(uploads).filter((name) => name.startsWith('mailguard-upload-'))).toEqual([]);
  });
});

describe('the last resort of every process', () => {
  it('an unhandled rejection is logged with its request id and the process goes on', async () => {
    const logger = resolve(__dirname, '../../dist/libs/logger/src/index.js');
    const script = `
      const { createLogger, requestContext, surviveUnhandled } = require(${JSON.stringify(logger)});
      surviveUnhandled(createLogger({ level: 'info' }, 'guard-test'));
      requestContext.run({ requestId: 'req-forgotten' }, () => { Promise.reject(new Error('nobody awaited me')); });
      setTimeout(() => { process.stdout.write('still here\\n'); }, 50);
    `;
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', script]);
    const line = stdout.split('\n').find((text) => text.includes('unhandled rejection')) ?? '';
    expect(JSON.parse(line)).toMatchObject({ level: 50, requestId: 'req-forgotten', err: { message: 'nobody awaited me' } });
    expect(stdout).toContain('still here');
  });
});
