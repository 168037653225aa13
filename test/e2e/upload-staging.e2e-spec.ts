import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLab, type Lab } from '../lab';
import { loadScenario } from '../lab/scenario';
import { apiClient } from '../support/api-client';
import { startGatewayProcess, type RunningProcess } from '../support/processes';
import { createTestDatabase, type TestDatabase } from '../support/services';

/**
 * Uploads leave nothing behind (issue: aborted uploads never cleaned up): every path — accepted,
 * refused for content, cut by RST or FIN at any byte, over the staging limits — releases its staged
 * folder and descriptors, counted in the gateway's /proc/<pid>/fd and its staging folder.
 */
jest.setTimeout(60_000);

let lab: Lab;
let database: TestDatabase;
let gateway: RunningProcess;
let port: number;
let key: string;
let stagingDir: string;

beforeAll(async () => {
  lab = await startLab(loadScenario());
  database = await createTestDatabase();
  gateway = await startGatewayProcess(
    { ...lab.env, DATABASE_URL: database.url, SIGNUP_LIMIT_PER_IP_HOUR: '1000' },
    mkdtempSync(join(tmpdir(), 'mailguard-staging-')),
  );
  port = Number(new URL(gateway.url).port);
  stagingDir = join(tmpdir(), `mailguard-uploads-${gateway.child.pid}`);
  key = await newKey();
});

afterAll(async () => {
  await gateway?.stop();
  await database?.drop();
  await lab?.stop();
});

async function newKey(): Promise<string> {
  const signup = await apiClient(gateway.url)<{ apiKey: string }>('POST', '/v1/accounts', {
    body: { email: `owner${Math.random().toString(36).slice(2)}@catchall.test` },
  });
  return signup.body.apiKey;
}

const descriptors = () => readdirSync(`/proc/${gateway.child.pid}/fd`).length;
const staged = () => {
  try {
    return readdirSync(stagingDir).length;
  } catch {
    return 0;
  }
};

/** Polls until `done` (another process's folder and descriptors have no event to wait on), for up to 5 s. */
async function until(done: () => boolean): Promise<void> {
  for (let tries = 0; tries < 100 && !done(); tries++) await new Promise((resolve) => setTimeout(resolve, 50));
}

/** Nothing staged, and no more descriptors than `baseline` (pooled connections may close meanwhile). */
async function expectSettled(baseline: number): Promise<void> {
  await until(() => staged() === 0 && descriptors() <= baseline);
  expect(staged()).toBe(0);
  expect(descriptors()).toBeLessThanOrEqual(baseline);
}

const BOUNDARY = 'staging-boundary';
function request(csv: Buffer, apiKey = key): Buffer {
  const body = Buffer.concat([
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="l.csv"\r\nContent-Type: text/csv\r\n\r\n`,
    ),
    csv,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
  const head =
    `POST /v1/lists HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${apiKey}\r\nConnection: close\r\n` +
    `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${body.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), body]);
}

/** Sends `bytes` and waits for the server to close; answers with what it sent. */
function exchange(bytes: Buffer): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(received));
    // No half-close: the server answers a request whose client has ended as one gone.
    socket.write(bytes);
  });
}

/** Sends the first `cut` bytes of `bytes`, then resets or half-closes once the server has them. */
function abort(bytes: Buffer, cut: number, how: 'rst' | 'fin'): Promise<void> {
  return new Promise((resolve) => {
    const socket: Socket = connect(port, '127.0.0.1', () => {
      socket.write(bytes.subarray(0, cut), () => {
        if (how === 'rst') socket.resetAndDestroy();
        else socket.end();
      });
    });
    socket.on('data', () => undefined);
    socket.on('error', () => undefined);
    socket.on('close', () => resolve());
  });
}

const MAX_BYTES = 50 * 1024 * 1024;

/** The gateway's resident memory, in bytes. */
function rss(): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${gateway.child.pid}/status`, 'utf8'))?.[1]) * 1024;
}

const LIST = Buffer.from(`email\n${'someone@acme.test\n'.repeat(20_000)}`);

it('releases everything of uploads cut by RST or FIN at any byte', async () => {
  await exchange(request(Buffer.from('email\nx@acme.test\n'))); // warm: lazily opened descriptors
  const baseline = descriptors();
  const whole = request(LIST);
  // In the headers, at the part's headers, early, mid and at the last byte of the body.
  const cuts = [200, 260, 1_000, 64 * 1024, Math.floor(whole.length / 2), whole.length - 1];
  for (const how of ['rst', 'fin'] as const) for (const cut of cuts) await abort(whole, cut, how);
  await expectSettled(baseline);
});

it('releases everything of uploads accepted or refused for their content', async () => {
  const baseline = descriptors();
  const answers = [
    await exchange(request(LIST)),
    await exchange(request(Buffer.from(`email\n${'a'.repeat(300 * 1024)}\n`))),
    await exchange(request(Buffer.from('email\nx@acme.test\u0000\n'))),
    await exchange(request(Buffer.alloc(MAX_BYTES + 1024, 'a'))),
  ].map((received) => Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1]));
  expect(answers).toEqual([202, 400, 400, 413]);
  await expectSettled(baseline);
});

it('refuses a 45 MB line of commas as it arrives, in bounded memory', async () => {
  const baseline = descriptors();
  const idle = rss();
  const csv = Buffer.concat([Buffer.from('email\n'), Buffer.alloc(45 * 1024 * 1024, ',')]);
  const bytes = request(csv);
  let peak = idle;
  const sampler = setInterval(() => (peak = Math.max(peak, rss())), 20);
  const received = await exchange(bytes);
  clearInterval(sampler);
  expect(received).toMatch(/^HTTP\/1\.1 400/);
  expect(received).toContain('row 1 has over 500 columns');
  expect(peak - idle).toBeLessThan(100 * 1024 * 1024);
  await expectSettled(baseline);
});

it('answers 429 {error, code} past an account’s concurrent uploads, and takes uploads again once they end', async () => {
  const owner = await newKey();
  const baseline = descriptors();
  const before = staged();
  const held = request(LIST, owner);
  // Two uploads held open mid-body by the same account.
  const sockets = await Promise.all(
    [0, 1].map(
      () =>
        new Promise<Socket>((resolve) => {
          const socket = connect(port, '127.0.0.1', () => socket.write(held.subarray(0, 1_000), () => resolve(socket)));
          socket.on('error', () => undefined);
        }),
    ),
  );
  try {
    await until(() => staged() >= before + 2);
    expect(staged()).toBe(before + 2);
    const third = await exchange(request(Buffer.from('email\nx@acme.test\n'), owner));
    expect(third).toMatch(/^HTTP\/1\.1 429/);
    expect(JSON.parse(third.slice(third.indexOf('\r\n\r\n') + 4))).toEqual({
      error: expect.any(String),
      code: 'rate_limited',
    });
    // Another account is not held back.
    expect(await exchange(request(Buffer.from('email\nx@acme.test\n')))).toMatch(/^HTTP\/1\.1 202/);
  } finally {
    for (const socket of sockets) socket.resetAndDestroy();
  }
  await expectSettled(baseline);
  expect(await exchange(request(Buffer.from('email\nx@acme.test\n'), owner))).toMatch(/^HTTP\/1\.1 202/);
});
