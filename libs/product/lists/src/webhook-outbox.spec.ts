import { createHmac } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { CreditLedger } from '@mailguard/credits';
import { createDataSource, runMigrations } from '@mailguard/db';
import type { VerificationResult } from '@mailguard/engine';
import { addressPolicy, addressResolver, Outbound } from '@mailguard/net';
import { HttpListener, type Respond } from '../../../../test/lab/testing/http-listener';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/services';
import { ListStore } from './list-store';
import { retryDelayMs, WEBHOOK_ATTEMPTS, WebhookOutbox } from './webhook-outbox';
import { startWebhookSender } from './webhook-sender';

/** The webhook outbox on a real Postgres, POSTing to a real HTTP listener on loopback. */
let database: TestDatabase;
let source: DataSource;
let store: ListStore;
const outbound = new Outbound(addressPolicy(true), addressResolver(null));
const listeners: HttpListener[] = [];
let lists = 0;

beforeAll(async () => {
  database = await createTestDatabase();
  source = createDataSource({ url: database.url, poolSize: 6 });
  await source.initialize();
  await runMigrations(source);
  store = new ListStore(() => source);
});

afterAll(async () => {
  await Promise.all(listeners.map((listener) => listener.close()));
  await source?.destroy();
  await database?.drop();
});

async function receiver(respond: Respond): Promise<HttpListener> {
  const listener = await HttpListener.start('127.0.0.1', 0, respond);
  listeners.push(listener);
  return listener;
}

const answering = (status: number) => receiver((_, response) => response.writeHead(status).end());

/** A one-row list with `webhookUrl`, settled to its end: it is owed its webhook. */
async function finishedList(webhookUrl: string | null): Promise<string> {
  const id = `lst_hook_${++lists}`;
  const accountId = `acc_hook_${lists}`;
  await database.query('INSERT INTO accounts (id, email, email_key, webhook_secret) VALUES ($1, $2, $2, $3)', [
    accountId,
    `${accountId}@example.test`,
    `whsec_${lists}`,
  ]);
  await new CreditLedger(() => source).grant(accountId, 5, 'test credits');
  await store.create({
    id,
    accountId,
    name: 'hooks.csv',
    columns: ['email'],
    delimiter: ',',
    emailColumn: 0,
    webhookUrl,
  });
  await store.insertRows(id, [
    { row: 1, fields: ['a@acme.test'], email: 'a@acme.test', key: 'a@acme.test', domain: 'acme.test', result: null },
  ]);
  await store.seal(id, accountId);
  await store.start(id);
  const result = { reachable: 'safe', status: 'valid' } as VerificationResult;
  const { finished } = await store.settle(id, [{ row: 1, result }]);
  expect(finished?.view.status).toBe('completed');
  return id;
}

/** Makes the list's pending delivery due now (the test's stand-in for waiting out its backoff). */
const dueNow = (listId: string) =>
  database.query('UPDATE webhook_deliveries SET next_attempt_at = now() WHERE list_id = $1', [listId]);

const webhookOf = async (listId: string) => (await store.find(listId))?.view.webhook;

it('owes a completed list one delivery, written as it ends, whose body is the list object it ended as', async () => {
  const hooks = await answering(200);
  const id = await finishedList(`http://127.0.0.1:${hooks.port}/hook`);
  const outbox = new WebhookOutbox(() => source, outbound, 30_000);
  // Ending it again (a job run twice, an empty list's completion) owes nothing more.
  expect(await store.completeIfDone(id)).toBeNull();
  expect(await database.query('SELECT count(*)::int AS n FROM webhook_deliveries WHERE list_id = $1', [id])).toEqual([
    { n: 1 },
  ]);
  expect(await webhookOf(id)).toMatchObject({ status: 'pending', attempts: 0, lastAttemptAt: null });

  expect(await outbox.sendDue(id)).toEqual({ delivered: 1, retrying: 0, failed: 0 });
  expect(hooks.heard).toHaveLength(1);
  const [heard] = hooks.heard;
  const listed = (await store.find(id))!.view;
  const { webhook, ...announced } = listed;
  expect(JSON.parse(heard.body)).toEqual(announced);
  expect(heard.headers['x-mailguard-signature']).toBe(
    `sha256=${createHmac('sha256', `whsec_${lists}`).update(heard.body).digest('hex')}`,
  );
  expect(webhook).toMatchObject({ status: 'delivered', attempts: 1, nextAttemptAt: null, lastError: null });
  expect(webhook?.deliveredAt).toEqual(expect.any(String));
  // Delivered: nothing is due any more.
  await dueNow(id);
  expect(await outbox.sendDue(id)).toEqual({ delivered: 0, retrying: 0, failed: 0 });
  expect(hooks.heard).toHaveLength(1);
});

it('owes nothing for a list without a webhookUrl, or one cancelled', async () => {
  const quiet = await finishedList(null);
  expect(await webhookOf(quiet)).toBeNull();
  const hooks = await answering(200);
  const id = `lst_hook_cancel_${++lists}`;
  const accountId = `acc_hook_${lists}`;
  await database.query("INSERT INTO accounts (id, email, email_key, webhook_secret) VALUES ($1, $2, $2, 's')", [
    accountId,
    `${accountId}@example.test`,
  ]);
  await store.create({
    id,
    accountId,
    name: 'cancel.csv',
    columns: ['email'],
    delimiter: ',',
    emailColumn: 0,
    webhookUrl: `http://127.0.0.1:${hooks.port}/`,
  });
  await store.insertRows(id, [{ row: 1, fields: ['x'], email: 'x', key: null, domain: null, result: null }]);
  await store.seal(id, accountId);
  expect((await store.cancel(id, accountId))?.view).toMatchObject({ status: 'cancelled', webhook: null });
  expect(await database.query('SELECT list_id FROM webhook_deliveries WHERE list_id = ANY($1)', [[quiet, id]])).toEqual(
    [],
  );
});

it('retries a failing URL with doubling delays, then marks the delivery failed on the list', async () => {
  const hooks = await receiver((_, response) => response.writeHead(503).end('down for maintenance'));
  const id = await finishedList(`http://127.0.0.1:${hooks.port}/hook`);
  const seen: string[] = [];
  const outbox = new WebhookOutbox(
    () => source,
    outbound,
    30_000,
    (outcome, attempt) => seen.push(`${outcome} ${attempt.listId}`),
  );

  expect(await outbox.sendDue(id)).toEqual({ delivered: 0, retrying: 1, failed: 0 });
  const [first] = await database.query<{ wait: number }>(
    'SELECT extract(epoch FROM next_attempt_at - last_attempt_at)::float AS wait FROM webhook_deliveries WHERE list_id = $1',
    [id],
  );
  // Due after the first delay (give or take the statement's own time), not before: a poll now sends nothing.
  expect(first.wait).toBeGreaterThanOrEqual(29);
  expect(first.wait).toBeLessThanOrEqual(31);
  expect(await outbox.sendDue(id)).toEqual({ delivered: 0, retrying: 0, failed: 0 });
  expect(await webhookOf(id)).toMatchObject({
    status: 'pending',
    attempts: 1,
    lastError: expect.stringContaining('503'),
    nextAttemptAt: expect.any(String),
  });

  for (let attempt = 2; attempt <= WEBHOOK_ATTEMPTS; attempt++) {
    await dueNow(id);
    const report = await outbox.sendDue(id);
    expect(report).toEqual(
      attempt < WEBHOOK_ATTEMPTS ? { delivered: 0, retrying: 1, failed: 0 } : { delivered: 0, retrying: 0, failed: 1 },
    );
  }
  expect(hooks.heard).toHaveLength(WEBHOOK_ATTEMPTS);
  expect(seen).toEqual([...Array<string>(WEBHOOK_ATTEMPTS - 1).fill(`retrying ${id}`), `failed ${id}`]);
  expect(await webhookOf(id)).toMatchObject({ status: 'failed', attempts: WEBHOOK_ATTEMPTS, nextAttemptAt: null });
  await dueNow(id);
  expect(await outbox.sendDue(id)).toEqual({ delivered: 0, retrying: 0, failed: 0 });
});

it('spaces the attempts over more than an hour at the default first delay', () => {
  const waits = Array.from({ length: WEBHOOK_ATTEMPTS - 1 }, (_, index) => retryDelayMs(index + 1, 30_000));
  expect(waits.slice(0, 3)).toEqual([30_000, 60_000, 120_000]);
  expect(waits.reduce((sum, wait) => sum + wait, 0)).toBeGreaterThan(3_600_000);
});

/** A receiver that holds each request until released; `arrived` resolves at the first one. */
async function holdingReceiver() {
  let arrive!: () => void;
  const arrived = new Promise<void>((resolve) => (arrive = resolve));
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const answered: number[] = [];
  const hooks = await receiver((_, response) => {
    arrive();
    void held.then(() => {
      answered.push(Date.now());
      response.writeHead(200).end();
    });
  });
  return { hooks, arrived, release, answered };
}

it('gives a due delivery to one sender of many (a claim is a lease)', async () => {
  const { hooks, arrived, release } = await holdingReceiver();
  const id = await finishedList(`http://127.0.0.1:${hooks.port}/hook`);
  const senders = Array.from({ length: 4 }, () => new WebhookOutbox(() => source, outbound, 30_000));
  const rounds = senders.map((sender) => sender.sendDue());
  // While the first sender's attempt waits for its answer, the others find the delivery claimed.
  await arrived;
  release();
  const reports = await Promise.all(rounds);
  expect(reports.reduce((sum, report) => sum + report.delivered, 0)).toBe(1);
  expect(hooks.heard).toHaveLength(1);
  expect(await webhookOf(id)).toMatchObject({ status: 'delivered', attempts: 1 });
});

it('a sender waits for the round in flight when it stops, and polls no more', async () => {
  const { hooks, arrived, release, answered } = await holdingReceiver();
  const id = await finishedList(`http://127.0.0.1:${hooks.port}/hook`);
  const errors: unknown[] = [];
  // A 20 ms first delay: the sender polls every 20 ms.
  const sender = startWebhookSender(new WebhookOutbox(() => source, outbound, 20), (error) => errors.push(error));
  await arrived;
  const stopped = sender.stop();
  release();
  await stopped;
  // The attempt in flight was answered and recorded before stop resolved.
  expect(answered).toHaveLength(1);
  expect(await webhookOf(id)).toMatchObject({ status: 'delivered' });
  // A delivery due now is not sent by the stopped sender, however many of its polls would have passed.
  const later = await finishedList(`http://127.0.0.1:${hooks.port}/later`);
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(hooks.heard).toHaveLength(1);
  expect(await webhookOf(later)).toMatchObject({ status: 'pending', attempts: 0 });
  expect(errors).toEqual([]);
});
