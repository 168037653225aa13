import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startLab, type Lab } from '../lab';
import { loadScenario } from '../lab/scenario';
import { apiClient, type ApiCall } from '../support/api-client';
import { E2E_CLUSTER_ENV } from '../support/cluster-env';
import { leaksIn } from '../support/log-leaks';
import { startGatewayProcess, startWorkerProcess, WORKER_KINDS, type RunningProcess } from '../support/processes';
import { createTestDatabase, flushRedisPrefix, TEST_REDIS_URL, type TestDatabase } from '../support/services';
import type { Driver } from './api-suite';

/**
 * Every line the service's processes print, at the most talkative level (trace), while a client uses
 * every surface: sign-up, key creation, single checks (the address in the URL, written and encoded),
 * a batch, a list with a webhook that fails once, MCP, the widget, the finder, feedback, the admin
 * and metrics tokens, and refused requests. None of its addresses, keys, tokens or secrets may be
 * in them: the addresses read `h:<hash>@domain`, the hash keyed by LOG_HASH_KEY as documented.
 */
export function logPrivacySuite(driver: Driver): void {
  jest.setTimeout(180_000);

  const distributed = driver === 'bullmq';
  /** In every address's local part and every secret of this run, and nowhere else: it must not be in the logs. */
  const run = randomBytes(8).toString('hex');
  const suitePrefix = `mgtest:${randomBytes(6).toString('hex')}:`;
  const adminToken = `admin-${run}`;
  const metricsToken = `metrics-${run}`;
  const hashKey = `hash-key-${run}`;
  const hookToken = `hook-${run}`;
  /** Addresses the run sends; catch-all.test answers any local part, acme.test its mailboxes. */
  const address = (name: string) => `${name}.${run}@catchall.test`;
  const addresses = {
    signup: address('Owner'),
    single: address('Single.Check'),
    encoded: address('encoded+tag'),
    batch: [address('batch.one'), address('batch.two')],
    list: [address('list.one'), address('list.two')],
    mcp: address('mcp'),
    widget: address('widget'),
    feedback: address('feedback'),
    malformed: `not-an-address.${run}@@catchall.test`,
  };
  /** The lab's mailboxes: no run token in them, so searched for whole. */
  const fixed = ['john.doe@acme.test', 'inactive.user@acme.test', 'nobody@acme.test'];
  const secrets: string[] = [adminToken, metricsToken, hashKey, hookToken];

  let lab: Lab;
  let database: TestDatabase;
  let gateway: RunningProcess;
  let workers: RunningProcess[] = [];
  let api: ApiCall;
  let apiKey: string;
  const workDir = () => mkdtempSync(join(tmpdir(), 'mailguard-log-privacy-'));

  /** The documented form, computed here on its own: `h:` + 8 hex of HMAC-SHA256(LOG_HASH_KEY, lower-cased address). */
  const masked = (email: string) =>
    `h:${createHmac('sha256', hashKey).update(email.toLowerCase()).digest('hex').slice(0, 8)}@${email.split('@')[1]}`;

  beforeAll(async () => {
    lab = await startLab(loadScenario());
    database = await createTestDatabase();
    const env = {
      ...lab.env,
      DATABASE_URL: database.url,
      ...(distributed ? { REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: suitePrefix } : {}),
      ...E2E_CLUSTER_ENV,
      LOG_LEVEL: 'trace',
      ADMIN_TOKEN: adminToken,
      METRICS_TOKEN: metricsToken,
      LOG_HASH_KEY: hashKey,
      WEBHOOK_RETRY_SECONDS: '1',
    };
    gateway = await startGatewayProcess(env, workDir());
    if (distributed) workers = await Promise.all(WORKER_KINDS.map((kind) => startWorkerProcess(kind, env, workDir())));
    api = apiClient(gateway.url);
  });

  afterAll(async () => {
    // Stopped by the last test; here only when it did not get that far (a second stop reports leaks again).
    await Promise.allSettled([gateway, ...workers].filter(Boolean).map((process) => process.stop()));
    await database?.drop();
    await lab?.stop();
    if (distributed) await flushRedisPrefix(suitePrefix);
  });

  it('signs up and creates keys', async () => {
    const signup = await api<{ apiKey: string; webhookSecret: string }>('POST', `/v1/accounts?password=pw-${run}`, {
      body: { email: addresses.signup },
    });
    expect(signup.status).toBe(201);
    apiKey = signup.body.apiKey;
    secrets.push(apiKey, signup.body.webhookSecret);
    for (const [scope, type] of [
      ['verify', 'secret'],
      ['full', 'widget'],
    ]) {
      const created = await api<{ key: string }>('POST', '/v1/keys', {
        key: apiKey,
        body: { name: `${scope} ${type}`, scope, type },
      });
      expect(created.status).toBe(201);
      secrets.push(created.body.key);
    }
  });

  it('checks addresses one at a time (in the URL, written and percent-encoded) and in a batch', async () => {
    for (const path of [
      `/v1/email-validation/${addresses.single}`,
      `/v1/email-validation/${encodeURIComponent(addresses.encoded)}`,
      ...fixed.map((email) => `/v1/email-validation/${email}`),
    ]) {
      const answer = await api<{ status: string }>('GET', path, { key: apiKey });
      expect([path, answer.status]).toEqual([path, 200]);
    }
    const batch = await api('POST', '/v1/email-validation/batch', { key: apiKey, body: { emails: addresses.batch } });
    expect(batch.status).toBe(200);
    const feedback = await api('POST', '/v1/email-validation/feedback', {
      key: apiKey,
      body: { email: addresses.feedback, outcome: 'bounced' },
    });
    expect(feedback.status).toBe(202);
    const found = await api('GET', '/v1/email-finder?firstName=John&lastName=Doe&domain=acme.test', { key: apiKey });
    expect(found.status).toBe(200);
    const widget = await api('POST', '/v1/widget/verify', {
      headers: { 'X-Forwarded-For': '198.51.100.7' },
      body: { email: addresses.widget, deviceId: `dev-${randomBytes(6).toString('hex')}` },
    });
    expect(widget.status).toBe(200);
  });

  it('runs a list whose webhook (a token in its URL) fails once, then is delivered', async () => {
    let deliveries = 0;
    let delivered: () => void;
    const done = new Promise<void>((resolve) => (delivered = resolve));
    const receiver: Server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(++deliveries === 1 ? 500 : 200).end();
        if (deliveries === 2) delivered();
      });
    });
    receiver.listen(0, '127.0.0.1');
    await new Promise((resolve) => receiver.once('listening', resolve));
    try {
      const form = new FormData();
      form.append('webhookUrl', `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook?token=${hookToken}`);
      form.append('file', new Blob([`email\n${addresses.list.join('\n')}\n`], { type: 'text/csv' }), 'privacy.csv');
      const upload = await fetch(`${gateway.url}/v1/lists`, {
        method: 'POST',
        headers: { 'X-API-Key': apiKey },
        body: form,
      });
      expect(upload.status).toBe(202);
      const { id } = (await upload.json()) as { id: string };
      await done;
      const rows = await api<{ data: Array<{ email: string }> }>('GET', `/v1/lists/${id}/results`, { key: apiKey });
      expect(rows.body.data.map((row) => row.email).sort()).toEqual([...addresses.list].sort());
    } finally {
      receiver.closeAllConnections();
      receiver.close();
    }
  });

  it('calls MCP tools with the key as a bearer token', async () => {
    const client = new Client({ name: 'log-privacy', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
      }),
    );
    try {
      const checked = await client.callTool({ name: 'verify_email', arguments: { email: addresses.mcp } });
      expect(checked.isError).toBeFalsy();
      const refused = await client.callTool({ name: 'verify_emails', arguments: { emails: addresses.mcp } });
      expect(refused.isError).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('is refused where it should be (a key or token in the URL, a wrong key or token, no route), and takes the admin and metrics tokens', async () => {
    const refusals: Array<[string, string, Record<string, string>, number[]]> = [
      // Answered `invalid` (bad syntax), as any address.
      ['GET', `/v1/email-validation/${encodeURIComponent(addresses.malformed)}`, { 'X-API-Key': apiKey }, [200]],
      ['GET', `/v1/email-validation/${addresses.single}?api_key=${apiKey}`, {}, [401]],
      ['GET', `/v1/email-validation/${addresses.single}`, { Authorization: `Bearer ${apiKey}x` }, [401]],
      ['GET', `/v1/nothing/${addresses.single}?session_token=session-${run}`, { 'X-API-Key': apiKey }, [404]],
      ['DELETE', `/v1/keys/${apiKey}`, { 'X-API-Key': apiKey }, [404]],
      ['GET', `/admin/queues?token=${adminToken}`, {}, [401, 404]],
      ['GET', '/admin/queues', { Authorization: `Bearer ${adminToken}x` }, [401, 404]],
      ['GET', '/admin/queues', { Authorization: `Bearer ${adminToken}` }, [distributed ? 200 : 404]],
      ['GET', `/metrics?token=${metricsToken}`, {}, [401]],
      ['GET', '/metrics', { Authorization: `Bearer ${metricsToken}` }, [200]],
    ];
    for (const [method, path, headers, statuses] of refusals) {
      const response = await fetch(`${gateway.url}${path}`, { method, headers });
      await response.arrayBuffer();
      expect([method, path, statuses.includes(response.status)]).toEqual([method, path, true]);
    }
    const duplicate = await api('POST', '/v1/accounts', { body: { email: addresses.signup } });
    expect(duplicate.status).toBe(409);
    const malformed = await api('POST', '/v1/email-validation/batch', {
      key: apiKey,
      body: `{"emails": ["${addresses.batch[0]}",`,
    });
    expect(malformed.status).toBe(400);
  });

  it("shows none of it in any process's logs: addresses masked to the keyed hash, no key, token or secret", async () => {
    const processes = [gateway, ...workers];
    // SIGTERM: each process writes its last lines and exits; stop() also reports what log-leaks.ts finds.
    const stopped = await Promise.allSettled(processes.map((process) => process.stop()));
    const logs = processes.map((process) => process.output()).join('\n');
    const lines = logs.split('\n');
    // Something was logged, at trace, by every process: the check below is not vacuous.
    for (const process of processes) expect(process.output().split('\n').length).toBeGreaterThan(5);
    expect(lines.filter((line) => line.includes(run))).toEqual([]);
    const everyAddress = [...Object.values(addresses).flat(), ...fixed];
    expect(everyAddress.filter((email) => logs.toLowerCase().includes(email.toLowerCase()))).toEqual([]);
    expect(secrets.filter((secret) => logs.includes(secret))).toEqual([]);
    expect(leaksIn(logs)).toEqual([]);
    expect(stopped.filter((outcome) => outcome.status === 'rejected')).toEqual([]);
    // The request lines are there, each address masked as documented, written or percent-encoded alike.
    expect(logs).toContain(`"url":"/v1/email-validation/${masked(addresses.single)}"`);
    expect(logs).toContain(`"url":"/v1/email-validation/${masked(addresses.encoded)}"`);
    expect(logs).toContain(`"url":"/v1/email-validation/${masked(fixed[0])}"`);
    expect(logs).toContain(`"url":"/v1/email-validation/${masked(addresses.single)}?api_key=[redacted]"`);
    expect(logs).toContain(`"url":"/admin/queues?token=[redacted]"`);
    expect(logs).toContain('"method":"POST","url":"/mcp"');
    expect(logs).toContain('"method":"POST","url":"/v1/lists"');
  });
}
