import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import type { ListView } from '@mailguard/lists';
import { startLab, type Lab } from '../lab';
import { loadScenario } from '../lab/scenario';
import { apiClient, signupAt, uploadAddresses, type ApiCall } from '../support/api-client';
import { E2E_CLUSTER_ENV } from '../support/cluster-env';
import {
  startGatewayProcess,
  startWorkerProcess,
  WORKER_KINDS,
  type RunningProcess,
  type WorkerKindName,
} from '../support/processes';
import { expectSettledAndPaidOnce } from '../support/list-settlement';
import { createTestDatabase, flushRedisPrefix, TEST_REDIS_URL, type TestDatabase } from '../support/services';

/**
 * Drains (issue 34, "shutdown is not a drain"): the distributed service (BullMQ) on real Postgres
 * and Redis, the mail lab answering. SIGTERM of an smtp-worker and of the list-worker in the middle
 * of a list, replacements started at once as a rollout does: no row is asked twice, the list
 * completes once and every row is paid once. SIGTERM of a gateway under load: every request
 * answered.
 */
jest.setTimeout(240_000);

const prefix = `mgdrain:${randomBytes(6).toString('hex')}:`;
const dirs: string[] = [];
const workDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'mailguard-drain-'));
  dirs.push(dir);
  return dir;
};

/** Many small domains on one MX: the feed inspects each (a slow RDAP server) while SMTP already asks the first. */
const DOMAINS = 60;
const ROWS_PER_DOMAIN = 20;
const MX = 'mx.drain.test';

function scenario() {
  const base = loadScenario();
  base.servers![MX] = { latencyMs: 40 };
  base.servers!['mx.load.test'] = { latencyMs: 40 };
  const mailboxes: Record<string, string> = {};
  for (let i = 0; i < ROWS_PER_DOMAIN; i += 2) mailboxes[`user${i}`] = 'ok';
  for (let d = 0; d < DOMAINS; d++) base.domains![`drain${d}.test`] = { mx: [{ host: MX, priority: 10 }], mailboxes };
  base.domains!['load.test'] = { mx: [{ host: 'mx.load.test', priority: 10 }], mailboxes };
  return base;
}

let lab: Lab;
let database: TestDatabase;
let gateway: RunningProcess;
const workers = new Map<WorkerKindName, RunningProcess>();
let api: ApiCall;

function env(): Record<string, string> {
  return {
    ...lab.env,
    DATABASE_URL: database.url,
    REDIS_URL: TEST_REDIS_URL,
    REDIS_PREFIX: prefix,
    ...E2E_CLUSTER_ENV,
    RATE_LIMIT_PER_MINUTE: '1000000',
    // The workers say what they hand back at shutdown.
    LOG_LEVEL: 'info',
  };
}

const startWorker = async (kind: WorkerKindName) => workers.set(kind, await startWorkerProcess(kind, env(), workDir()));

beforeAll(async () => {
  // Each new domain's facts wait for its age (RDAP): a list's feed lasts seconds.
  lab = await startLab(scenario(), { httpLatencyMs: 500 });
  database = await createTestDatabase();
  gateway = await startGatewayProcess(env(), workDir());
  await Promise.all(WORKER_KINDS.map(startWorker));
  api = apiClient(gateway.url);
});

afterAll(async () => {
  await Promise.all([...workers.values(), gateway].map((process) => process?.stop('SIGKILL')));
  await lab?.stop();
  await database?.drop();
  await flushRedisPrefix(prefix);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function signup(credits: number): Promise<{ apiKey: string; accountId: string }> {
  const account = await signupAt(api, 'catchall.test');
  await database.setBalance(account.accountId, credits);
  return account;
}

/** A server taking the list's webhook: resolves with the list object it is sent as the list ends. */
async function webhookReceiver(): Promise<{ url: string; ended: Promise<ListView>; server: Server }> {
  let received = (_list: ListView) => undefined as void;
  const ended = new Promise<ListView>((resolve) => (received = resolve));
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      res.writeHead(200).end();
      received(JSON.parse(body) as ListView);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`, ended, server };
}

/** The members of every per-MX slot set in Redis (`pid:sequence:random` each). */
async function slotHolders(): Promise<string[]> {
  const redis = new Redis(TEST_REDIS_URL);
  try {
    const keys = await redis.keys(`${prefix}mx:slots:*`);
    return (await Promise.all(keys.map((key) => redis.zrange(key, 0, -1)))).flat();
  } finally {
    redis.disconnect();
  }
}

describe('SIGTERM of an smtp-worker and the list-worker mid-list (a rollout)', () => {
  it('asks no address twice, completes the list once and pays every row once', async () => {
    const total = DOMAINS * ROWS_PER_DOMAIN;
    const { apiKey, accountId } = await signup(total);
    const hook = await webhookReceiver();
    const addresses: string[] = [];
    for (let d = 0; d < DOMAINS; d++)
      for (let i = 0; i < ROWS_PER_DOMAIN; i++) addresses.push(`user${i}@drain${d}.test`);
    const listed = new Set(addresses);
    const asked = new Map<string, number>();
    const firstAsked = new Promise<void>((resolve) => {
      lab.smtp(MX).onCommand((command) => {
        // The made-up address of a catch-all test is not the list's.
        const address = /^RCPT TO:<([^>]+)>/i.exec(command)?.[1];
        if (address === undefined || !listed.has(address)) return;
        asked.set(address, (asked.get(address) ?? 0) + 1);
        resolve();
      });
    });
    try {
      const listId = await uploadAddresses(gateway.url, apiKey, addresses, { webhookUrl: hook.url });

      // Mid-list: the prober is in a session and the feed has most of the domains still to inspect.
      await firstAsked;
      const old = { smtp: workers.get('smtp-worker')!, list: workers.get('list-worker')! };
      const exits = Promise.all([old.smtp.stop('SIGTERM'), old.list.stop('SIGTERM')]);
      await Promise.all([startWorker('smtp-worker'), startWorker('list-worker')]);
      expect(await exits).toEqual([0, 0]);
      // The feed stopped at its checkpoint and went back to the queue (no stalled-job recovery, no failed attempt).
      expect(old.list.output()).toMatch(/list\.feed \S+ handed back to the queue/);
      expect(old.list.output()).not.toMatch(/failed \(attempt/);
      expect(old.smtp.output()).not.toMatch(/failed \(attempt/);
      // Every session slot the stopped prober held is given back, none left to run out in Redis.
      const pid = `${old.smtp.child.pid}:`;
      expect((await slotHolders()).filter((holder) => holder.startsWith(pid))).toEqual([]);

      const ended = await hook.ended;
      expect(ended).toMatchObject({
        id: listId,
        status: 'completed',
        total,
        processed: total,
        counts: { valid: total / 2, risky: 0, invalid: total / 2 },
        creditsHeld: 0,
        creditsCharged: total,
      });
      // Each address asked in one SMTP session, once: none again after the drains.
      expect([...asked.entries()].filter(([, times]) => times !== 1)).toEqual([]);
      expect(asked.size).toBe(total);
      await expectSettledAndPaidOnce((sql, params) => database.query(sql, params), accountId, listId, total);
      expect((await api('GET', '/v1/credits', { key: apiKey })).body).toMatchObject({ balance: 0, held: 0 });
    } finally {
      hook.server.close();
    }
  });
});

describe('SIGTERM of a gateway under load', () => {
  it('answers every request: served through the pre-stop delay while readiness says 503, then drained', async () => {
    const { apiKey } = await signup(100_000);
    const draining = await startGatewayProcess({ ...env(), SHUTDOWN_DELAY_MS: '5000' }, workDir());
    const outcomes: Array<{ status: number | string; after: boolean }> = [];
    let signalled = false;
    // The load balancer: it stops sending once readiness says 503 (or the port is gone).
    let routing = true;
    const balancer = (async () => {
      for (;;) {
        const ready = await fetch(`${draining.url}/health/ready`).then(
          (response) => response.status,
          () => 0,
        );
        if (ready === 200) continue;
        routing = false;
        return ready;
      }
    })();
    let answered = 0;
    let loaded = () => undefined as void;
    const underLoad = new Promise<void>((resolve) => (loaded = resolve));
    const client = async (lane: number) => {
      for (let n = 0; routing; n++) {
        const sentAfter = signalled;
        const status = await fetch(`${draining.url}/v1/email-validation/user${(lane * 7 + n) % 20}@load.test`, {
          headers: { 'X-API-Key': apiKey },
        }).then(
          async (response) => {
            await response.arrayBuffer();
            return response.status;
          },
          (error: Error) => String((error.cause as Error | undefined)?.message ?? error.message),
        );
        outcomes.push({ status, after: sentAfter || signalled });
        if (++answered >= 40) loaded();
      }
    };
    const clients = Promise.all(Array.from({ length: 20 }, (_, lane) => client(lane)));
    await underLoad;
    signalled = true;
    const exited = draining.stop('SIGTERM');
    const [, notReady] = await Promise.all([clients, balancer]);
    // Readiness said so while the gateway still served (not a refused connection).
    expect(notReady).toBe(503);
    expect(await exited).toBe(0);
    expect(outcomes.filter(({ status }) => status !== 200)).toEqual([]);
    // Requests were in flight at the signal, or sent after it, and were answered.
    expect(outcomes.filter(({ after }) => after).length).toBeGreaterThan(0);
  });
});
