import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startLab, type Lab } from '../lab';
import { loadScenario } from '../lab/scenario';
import { apiClient } from '../support/api-client';
import { holdings, startGatewayProcess, type Holdings, type RunningProcess } from '../support/processes';
import { createTestDatabase, type TestDatabase } from '../support/services';

/**
 * Uploads leave nothing behind (issue: aborted uploads never cleaned up): every path — accepted,
 * refused for content, cut by RST or FIN at any byte, stalled past the idle timeout, over the
 * staging limits of an account or of the process, MCP create_list — releases its staged folder and
 * descriptors, counted in the gateway's /proc/<pid>/fd and its staging folder.
 */
jest.setTimeout(60_000);

interface Gateway {
  process: RunningProcess;
  port: number;
  stagingDir: string;
  held: Holdings;
  key: string;
}

let lab: Lab;
let database: TestDatabase;
/** With the default limits. */
let main: Gateway;

async function startGateway(extra: Record<string, string> = {}): Promise<Gateway> {
  const started = await startGatewayProcess(
    { ...lab.env, DATABASE_URL: database.url, SIGNUP_LIMIT_PER_IP_HOUR: '1000', ...extra },
    mkdtempSync(join(tmpdir(), 'mailguard-staging-')),
  );
  const gateway = {
    process: started,
    port: Number(new URL(started.url).port),
    stagingDir: join(tmpdir(), `mailguard-uploads-${started.child.pid}`),
    held: holdings(started),
    key: '',
  };
  gateway.key = await newKey(gateway);
  return gateway;
}

beforeAll(async () => {
  lab = await startLab(loadScenario());
  database = await createTestDatabase();
  main = await startGateway();
});

afterAll(async () => {
  await main?.process.stop();
  await database?.drop();
  await lab?.stop();
});

async function newKey(at: Gateway = main): Promise<string> {
  const signup = await apiClient(at.process.url)<{ apiKey: string }>('POST', '/v1/accounts', {
    body: { email: `owner${Math.random().toString(36).slice(2)}@catchall.test` },
  });
  return signup.body.apiKey;
}

const descriptors = (at = main) => at.held.descriptors();
const staged = (at = main) => at.held.stagedUploads();
/** The bytes staged now, across every upload's folder. */
const stagedBytes = (at: Gateway) => {
  let bytes = 0;
  for (const folder of readdirSync(at.stagingDir))
    for (const file of readdirSync(join(at.stagingDir, folder))) {
      try {
        bytes += statSync(join(at.stagingDir, folder, file)).size;
      } catch {
        // Removed meanwhile: nothing staged.
      }
    }
  return bytes;
};

/** Polls until `done` (another process's folder and descriptors have no event to wait on), for up to 5 s. */
async function until(done: () => boolean): Promise<void> {
  for (let tries = 0; tries < 100 && !done(); tries++) await new Promise((resolve) => setTimeout(resolve, 50));
}

/** Nothing staged, and no more descriptors than `baseline` (pooled connections may close meanwhile). */
async function expectSettled(baseline: number, at = main): Promise<void> {
  await at.held.settle(baseline);
  expect(staged(at)).toBe(0);
  expect(descriptors(at)).toBeLessThanOrEqual(baseline);
}

const BOUNDARY = 'staging-boundary';
function request(csv: Buffer, apiKey = main.key): Buffer {
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
function exchange(bytes: Buffer, at = main): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(at.port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(received));
    // No half-close: the server answers a request whose client has ended as one gone.
    socket.write(bytes);
  });
}

const statusOf = (received: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1]);
const bodyOf = (received: string): unknown => JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4));
const headerOf = (received: string, name: string) =>
  new RegExp(`^${name}: (.*)$`, 'im').exec(received.slice(0, received.indexOf('\r\n\r\n')))?.[1]?.trim();

/** Sends the first `cut` bytes of `bytes`, then resets or half-closes once the server has them. */
function abort(bytes: Buffer, cut: number, how: 'rst' | 'fin'): Promise<void> {
  return new Promise((resolve) => {
    const socket: Socket = connect(main.port, '127.0.0.1', () => {
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

/** Sends the first `cut` bytes of `bytes` and holds the connection open (an upload in progress). */
function hold(bytes: Buffer, cut: number, at: Gateway): Promise<Socket> {
  return new Promise<Socket>((resolve) => {
    const socket = connect(at.port, '127.0.0.1', () => socket.write(bytes.subarray(0, cut), () => resolve(socket)));
    socket.on('error', () => undefined);
  });
}

const MAX_BYTES = 50 * 1024 * 1024;

/** The gateway's resident memory, in bytes. */
function rss(): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${main.process.child.pid}/status`, 'utf8'))?.[1]) * 1024;
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
  ].map(statusOf);
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
  const sockets = await Promise.all([0, 1].map(() => hold(held, 1_000, main)));
  try {
    await until(() => staged() >= before + 2);
    expect(staged()).toBe(before + 2);
    const third = await exchange(request(Buffer.from('email\nx@acme.test\n'), owner));
    expect(statusOf(third)).toBe(429);
    expect(bodyOf(third)).toEqual({ error: expect.any(String), code: 'rate_limited' });
    expect(Number(headerOf(third, 'Retry-After'))).toBeGreaterThan(0);
    // Another account is not held back.
    expect(statusOf(await exchange(request(Buffer.from('email\nx@acme.test\n'))))).toBe(202);
  } finally {
    for (const socket of sockets) socket.resetAndDestroy();
  }
  await expectSettled(baseline);
  expect(statusOf(await exchange(request(Buffer.from('email\nx@acme.test\n'), owner)))).toBe(202);
});

describe('MCP create_list', () => {
  let client: Client;

  beforeAll(async () => {
    client = new Client({ name: 'staging', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${main.process.url}/mcp`), {
        requestInit: { headers: { 'X-API-Key': main.key } },
      }),
    );
  });
  afterAll(() => client?.close());

  /** The tool's answer: `created` for a list, or the refusal's code. */
  async function createList(csv: string): Promise<string> {
    const result = (await client.callTool({ name: 'create_list', arguments: { csv } })) as CallToolResult;
    if (!result.isError) return /^lst_/.test((result.structuredContent as { id: string }).id) ? 'created' : 'no id';
    const [content] = result.content as Array<{ text: string }>;
    const body = JSON.parse(content.text) as { error: unknown; code: string };
    expect(body.error).toEqual(expect.any(String));
    return body.code;
  }

  it('leaves no staged file nor descriptor, accepted or refused (bad CSV, NUL, over-long row, over 5 MB)', async () => {
    // Warm: the connection the client keeps, and what the first list opens lazily.
    expect(await createList('email\nx@acme.test\n')).toBe('created');
    await until(() => staged() === 0);
    const baseline = descriptors();
    const answers = [
      await createList(LIST.toString()),
      await createList('email,name\n"x@acme.test,Jane\n'),
      await createList('name\nJane\n'),
      await createList('email\nx@acme.test\u0000\n'),
      await createList(`email\n${'a'.repeat(300 * 1024)}\n`),
      await createList(`email\n${'someone@acme.test\n'.repeat(Math.ceil((5 * 1024 * 1024) / 18) + 1)}`),
    ];
    expect(answers).toEqual([
      'created',
      'bad_request',
      'bad_request',
      'bad_request',
      'bad_request',
      'payload_too_large',
    ]);
    await expectSettled(baseline);
  });
});

/** A gateway with staging limits small enough to reach in a test: an account 2 uploads and 768 KiB, the process 3 and 1 MiB. */
describe('the process’s staging limits', () => {
  let small: Gateway;
  beforeAll(async () => {
    small = await startGateway({
      UPLOAD_MAX_CONCURRENT_PER_ACCOUNT: '2',
      UPLOAD_MAX_BYTES_PER_ACCOUNT: String(768 * 1024),
      UPLOAD_MAX_CONCURRENT: '3',
      UPLOAD_MAX_STAGED_BYTES: String(1024 * 1024),
    });
  });
  afterAll(() => small?.process.stop());

  const expectUnavailable = (received: string) => {
    expect(statusOf(received)).toBe(503);
    expect(bodyOf(received)).toEqual({ error: expect.any(String), code: 'unavailable' });
    expect(Number(headerOf(received, 'Retry-After'))).toBeGreaterThan(0);
  };

  it('answers 503 {error, code} past the process’s concurrent uploads, whichever accounts hold them', async () => {
    const [one, two, three] = [await newKey(small), await newKey(small), await newKey(small)];
    const baseline = descriptors(small);
    const sockets = await Promise.all([
      hold(request(LIST, one), 1_000, small),
      hold(request(LIST, one), 1_000, small),
      hold(request(LIST, two), 1_000, small),
    ]);
    const list = request(Buffer.from('email\nx@acme.test\n'), three);
    try {
      await until(() => staged(small) >= 3);
      expect(staged(small)).toBe(3);
      expectUnavailable(await exchange(list, small));
    } finally {
      for (const socket of sockets) socket.resetAndDestroy();
    }
    await expectSettled(baseline, small);
    expect(statusOf(await exchange(list, small))).toBe(202);
  });

  it('answers 429 past an account’s staged bytes and 503 past the process’s, as the bytes arrive', async () => {
    const [holder, other] = [await newKey(small), await newKey(small)];
    const baseline = descriptors(small);
    const big = request(Buffer.concat([Buffer.from('email\n'), Buffer.alloc(1024 * 1024, 'a')]), holder);
    // 700 KiB of one upload staged, under the account's 768 KiB.
    const socket = await hold(big, 700 * 1024, small);
    try {
      await until(() => stagedBytes(small) >= 690 * 1024);
      expect(stagedBytes(small)).toBeGreaterThanOrEqual(690 * 1024);
      // LIST is 352 KiB: over the holder's share, and (from another account) over the process's 1 MiB.
      const mine = await exchange(request(LIST, holder), small);
      expect(statusOf(mine)).toBe(429);
      expect(bodyOf(mine)).toEqual({ error: expect.stringContaining('staging too much'), code: 'rate_limited' });
      expectUnavailable(await exchange(request(LIST, other), small));
    } finally {
      socket.resetAndDestroy();
    }
    await expectSettled(baseline, small);
    expect(statusOf(await exchange(request(LIST, other), small))).toBe(202);
  });
});

describe('an upload that stalls mid-body', () => {
  let impatient: Gateway;
  beforeAll(async () => {
    impatient = await startGateway({ UPLOAD_IDLE_TIMEOUT_MS: '300' });
  });
  afterAll(() => impatient?.process.stop());

  /** Sends the first `cut` bytes, then nothing, the connection left open; answers what the server sent before closing. */
  function stall(bytes: Buffer, cut: number): Promise<string> {
    return new Promise((resolve) => {
      const socket = connect(impatient.port, '127.0.0.1', () => socket.write(bytes.subarray(0, cut)));
      let received = '';
      socket.on('data', (chunk) => (received += chunk.toString('latin1')));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(received));
    });
  }

  it('is answered 408 {error, code} once silent for UPLOAD_IDLE_TIMEOUT_MS, its file and connection released', async () => {
    await exchange(request(Buffer.from('email\nx@acme.test\n'), impatient.key), impatient); // warm
    const baseline = descriptors(impatient);
    const whole = request(LIST, impatient.key);
    // At the part's headers, and mid-file (the staged file open for writing).
    for (const cut of [260, 64 * 1024]) {
      const received = await stall(whole, cut);
      expect(statusOf(received)).toBe(408);
      expect(bodyOf(received)).toEqual({
        error: expect.stringContaining('The upload sent nothing for 0.3 s'),
        code: 'request_timeout',
      });
      expect(headerOf(received, 'Connection')).toBe('close');
    }
    await expectSettled(baseline, impatient);
  });
});
