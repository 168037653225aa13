import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ListView } from '@mailguard/lists';
import { startLab, type Lab } from '../lab';
import { loadScenario } from '../lab/scenario';
import { HttpListener } from '../lab/testing/http-listener';
import { apiClient } from '../support/api-client';
import { E2E_CLUSTER_ENV } from '../support/cluster-env';
import { startCluster, type TestCluster } from '../support/processes';
import { createTestDatabase, flushRedisPrefix, TEST_REDIS_URL, type TestDatabase } from '../support/services';

/** A webhook receiver whose answer the test sets, and which tells when its n-th request has come. */
class Receiver {
  status = 500;
  private waiters: Array<{ count: number; resolve: () => void }> = [];

  private constructor(readonly listener: HttpListener) {}

  static async start(): Promise<Receiver> {
    let receiver: Receiver | null = null;
    const listener = await HttpListener.start('127.0.0.1', 0, (_, response) => {
      response.writeHead(receiver?.status ?? 500).end();
      receiver?.heard();
    });
    receiver = new Receiver(listener);
    return receiver;
  }

  get requests() {
    return this.listener.heard;
  }

  /** Resolves once `count` requests have come in all. */
  until(count: number): Promise<void> {
    return new Promise((resolve) => {
      this.waiters.push({ count, resolve });
      this.heard();
    });
  }

  private heard(): void {
    this.waiters = this.waiters.filter((waiter) => {
      if (this.requests.length < waiter.count) return true;
      waiter.resolve();
      return false;
    });
  }
}

/**
 * Durable webhooks (issue 29): a list completes while its receiver answers 500, the whole service
 * is restarted twice while the delivery waits in the Postgres outbox (PGlite in one process), then
 * the receiver answers 200 and gets the list exactly once, signed, and the list says it was delivered.
 */
export function webhooksSuite(mode: 'in-process' | 'bullmq'): void {
  const distributed = mode === 'bullmq';
  jest.setTimeout(240_000);

  const prefix = `mghooks:${randomBytes(6).toString('hex')}:`;
  let lab: Lab;
  let database: TestDatabase | null = null;
  let receiver: Receiver;
  let cluster: TestCluster | null = null;
  // One working directory per process kind, kept across restarts: the one process's PGlite data lives there.
  const dirs = new Map<number, string>();
  let started = 0;
  const workDir = () => {
    const index = started++ % (distributed ? 5 : 1);
    if (!dirs.has(index)) dirs.set(index, mkdtempSync(join(tmpdir(), 'mailguard-hooks-')));
    return dirs.get(index)!;
  };

  const env = (): Record<string, string> => ({
    ...lab.env,
    ...E2E_CLUSTER_ENV,
    WEBHOOK_RETRY_SECONDS: '1',
    ...(distributed && database ? { DATABASE_URL: database.url, REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: prefix } : {}),
  });

  const stopAll = async () => {
    const codes = await Promise.all((cluster?.processes ?? []).map((process) => process.stop()));
    cluster = null;
    return codes;
  };

  beforeAll(async () => {
    lab = await startLab(loadScenario());
    if (distributed) database = await createTestDatabase();
    receiver = await Receiver.start();
    cluster = await startCluster(env(), distributed, workDir);
  });

  afterAll(async () => {
    await stopAll();
    await receiver?.listener.close();
    await lab?.stop();
    await database?.drop();
    if (distributed) await flushRedisPrefix(prefix);
  });

  it('keeps retrying a failing webhook across two restarts, then delivers it exactly once', async () => {
    const api = apiClient(cluster!.gateway.url);
    const created = await api<{ apiKey: string; webhookSecret: string }>('POST', '/v1/accounts', {
      body: { email: `owner.${randomBytes(4).toString('hex')}@catchall.test` },
    });
    expect(created.status).toBe(201);
    const signup = created.body;
    const form = new FormData();
    form.append('webhookUrl', `http://127.0.0.1:${receiver.listener.port}/hooks/mailguard`);
    form.append('file', new Blob(['email\njohn.doe@acme.test\nnobody@acme.test\n']), 'hooks.csv');
    const upload = await fetch(`${cluster!.gateway.url}/v1/lists`, {
      method: 'POST',
      headers: { 'X-API-Key': signup.apiKey },
      body: form,
    });
    expect(upload.status).toBe(202);
    const { id } = (await upload.json()) as ListView;

    // The list completes, and its first attempt fails.
    await receiver.until(1);
    let heard = receiver.requests.length;
    for (let restart = 1; restart <= 2; restart++) {
      // A clean stop of every process: SIGTERM, exit 0.
      expect(new Set(await stopAll())).toEqual(new Set([0]));
      cluster = await startCluster(env(), distributed, workDir);
      // The restarted service takes the delivery up again: another attempt, still answered 500.
      await receiver.until(heard + 1);
      heard = receiver.requests.length;
    }
    const again = apiClient(cluster!.gateway.url);
    const pending = await again<ListView>('GET', `/v1/lists/${id}`, { key: signup.apiKey });
    expect(pending.body).toMatchObject({
      status: 'completed',
      webhook: { status: 'pending', lastError: expect.stringContaining('500'), nextAttemptAt: expect.any(String) },
    });
    expect(pending.body.webhook!.attempts).toBeGreaterThanOrEqual(3);

    receiver.status = 200;
    await receiver.until(heard + 1);
    const listed = await again<ListView>('GET', `/v1/lists/${id}`, { key: signup.apiKey });
    // Delivered is final: no sender ever claims the delivery again, so this is the only 200 there will be.
    expect(listed.body.webhook).toMatchObject({ status: 'delivered', attempts: receiver.requests.length });
    const bodies = new Set(receiver.requests.map((request) => request.body));
    // Every attempt sent the same signed bytes: the list object as it ended.
    expect(bodies.size).toBe(1);
    const delivered = receiver.requests[receiver.requests.length - 1];
    expect(JSON.parse(delivered.body)).toMatchObject({ id, status: 'completed', processed: 2, total: 2 });
    expect(JSON.parse(delivered.body)).not.toHaveProperty('webhook');
    expect(delivered.headers['x-mailguard-signature']).toBe(
      `sha256=${createHmac('sha256', signup.webhookSecret).update(delivered.body).digest('hex')}`,
    );
  });
}
