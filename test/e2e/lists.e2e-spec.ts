import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ListView } from '@mailguard/lists';
import { startLab, type Lab } from '../lab';
import { loadScenario } from '../lab/scenario';
import { apiClient, type ApiCall } from '../support/api-client';
import { E2E_CLUSTER_ENV } from '../support/cluster-env';
import {
  startGatewayProcess,
  startWorkerProcess,
  WORKER_KINDS,
  type RunningProcess,
  type WorkerKindName,
} from '../support/processes';
import { createTestDatabase, flushRedisPrefix, TEST_REDIS_URL, type TestDatabase } from '../support/services';

/**
 * Bulk lists (docs/api.md endpoint #4–8, §4.1) over HTTP: the built gateway and the four workers as separate
 * processes on real Postgres and Redis, addresses checked in the mail lab.
 */
jest.setTimeout(180_000);

const prefix = `mglists:${randomBytes(6).toString('hex')}:`;
const workDir = () => mkdtempSync(join(tmpdir(), 'mailguard-lists-'));
let lab: Lab;
let database: TestDatabase;
let gateway: RunningProcess;
const workers = new Map<WorkerKindName, RunningProcess>();
let api: ApiCall;
let url: string;

type List = ListView;

interface Signup {
  account: { id: string; credits: number };
  apiKey: string;
  webhookSecret: string;
}

/** 40 domains of 125 mailboxes each (half of them real), for the long list of the kill test. */
const BULK_DOMAINS = 40;
function scenario() {
  const base = loadScenario();
  base.servers!['mx.bulk.test'] = { latencyMs: 20 };
  for (let d = 0; d < BULK_DOMAINS; d++) {
    const mailboxes: Record<string, string> = {};
    for (let i = 0; i < 125; i += 2) mailboxes[`user${i}`] = 'ok';
    base.domains![`bulk${d}.test`] = { mx: [{ host: 'mx.bulk.test', priority: 10 }], mailboxes };
  }
  // A server that greylists this mailbox for ever: retried 3 times, then settled as unknown.
  base.domains!['stubborn.test'] = {
    mx: [{ host: 'mx.bulk.test', priority: 10 }],
    mailboxes: { later: '451 4.7.1 Greylisted, please try again later' },
  };
  return base;
}

function env(): Record<string, string> {
  return {
    ...lab.env,
    DATABASE_URL: database.url,
    REDIS_URL: TEST_REDIS_URL,
    REDIS_PREFIX: prefix,
    ...E2E_CLUSTER_ENV,
    RATE_LIMIT_PER_MINUTE: '100000',
    GREYLIST_RETRY_SECONDS: '1',
    WEBHOOK_RETRY_SECONDS: '1',
  };
}

const startWorker = async (kind: WorkerKindName) => workers.set(kind, await startWorkerProcess(kind, env(), workDir()));

beforeAll(async () => {
  lab = await startLab(scenario());
  database = await createTestDatabase();
  gateway = await startGatewayProcess(env(), workDir());
  await Promise.all(WORKER_KINDS.map(startWorker));
  url = gateway.url;
  api = apiClient(url);
});

afterAll(async () => {
  await Promise.all([...workers.values()].map((worker) => worker.stop()));
  await gateway?.stop();
  await lab?.stop();
  await database?.drop();
  await flushRedisPrefix(prefix);
});

let signups = 0;
async function signup(): Promise<Signup> {
  const response = await api<Signup>('POST', '/v1/accounts', {
    body: { email: `owner${++signups}.${randomBytes(3).toString('hex')}@catchall.test` },
  });
  expect(response.status).toBe(201);
  return response.body;
}

async function upload(key: string, csv: string | Buffer, fields: Record<string, string> = {}, filename = 'leads.csv') {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('file', new Blob([csv], { type: 'text/csv' }), filename);
  const response = await fetch(`${url}/v1/lists`, { method: 'POST', headers: { 'X-API-Key': key }, body: form });
  return { status: response.status, body: (await response.json()) as List & { error: string } };
}

/** Polls the list (the customer's way of waiting) until it is over. */
async function settled(key: string, id: string, timeoutMs = 120_000): Promise<List> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await api<List>('GET', `/v1/lists/${id}`, { key });
    if (body.status !== 'queued' && body.status !== 'processing') return body;
    if (Date.now() > until) throw new Error(`list ${id} still ${body.status} at ${body.processed}/${body.total}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function results(key: string, id: string, query = '') {
  return api<{
    data: Array<{
      row: number;
      email: string;
      result: { status: string; reason: string; subStatus?: string | null } | null;
    }>;
    total: number;
  }>('GET', `/v1/lists/${id}/results?limit=100${query}`, { key });
}

async function csvResults(key: string, id: string): Promise<string> {
  const response = await fetch(`${url}/v1/lists/${id}/results?format=csv`, { headers: { 'X-API-Key': key } });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/csv/);
  return response.text();
}

describe('upload (#4): CSV variants', () => {
  it('reads comma-separated LF files, finds the "email" column, and checks every row', async () => {
    const { apiKey } = await signup();
    const csv =
      'name,email,company\nJohn,john.doe@acme.test,Acme\nNobody,nobody@acme.test,Acme\nBroken,not an address,None\n';
    const created = await upload(apiKey, csv);
    expect(created.status).toBe(202);
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^lst_/),
      name: 'leads.csv',
      total: 3,
      duplicates: 0,
      creditsHeld: 2,
      creditsCharged: 0,
    });
    expect(['queued', 'processing']).toContain(created.body.status);
    const done = await settled(apiKey, created.body.id);
    expect(done).toMatchObject({
      status: 'completed',
      total: 3,
      processed: 3,
      percent: 100,
      counts: { valid: 1, risky: 0, invalid: 2 },
      creditsHeld: 0,
      creditsCharged: 2,
    });
    const page = await results(apiKey, created.body.id);
    expect(page.body.data.map((row) => [row.row, row.email, row.result?.reason])).toEqual([
      [1, 'john.doe@acme.test', 'accepted_email'],
      [2, 'nobody@acme.test', 'rejected_email'],
      [3, 'not an address', 'invalid_syntax'],
    ]);
  });

  it('reads semicolons, CRLF, a BOM and quoted fields, and gives them back escaped in the same order', async () => {
    const { apiKey } = await signup();
    const csv =
      '\uFEFF"Full name";"E-mail";"Notes"\r\n"Doe; John";john.doe@acme.test;"said ""hi""\r\non two lines"\r\nJane;jane@acme.test;plain\r\n';
    const created = await upload(apiKey, csv);
    expect(created.status).toBe(202);
    await settled(apiKey, created.body.id);
    const text = await csvResults(apiKey, created.body.id);
    const lines = text.split('\r\n');
    expect(lines[0]).toBe(
      'Full name;E-mail;Notes;status;reason;confidence;reachable;is_free;is_role;is_disposable;is_catch_all;suggestion;score;sub_status',
    );
    expect(lines[1]).toBe('"Doe; John";john.doe@acme.test;"said ""hi""');
    expect(lines[2]).toBe('on two lines";valid;accepted_email;;safe;false;false;false;false;;97;');
    expect(lines[3]).toBe('Jane;jane@acme.test;plain;valid;accepted_email;;safe;false;false;false;false;;97;');
  });

  it("writes our column as mailguard_<name> when the customer's header already has that name, and fills sub_status", async () => {
    const { apiKey } = await signup();
    const created = await upload(apiKey, 'email,Status,score\nnobody@acme.test,lead,5\nx@nullmx.test,cold,1\n');
    await settled(apiKey, created.body.id);
    const lines = (await csvResults(apiKey, created.body.id)).split('\r\n');
    expect(lines[0]).toBe(
      'email,Status,score,mailguard_status,reason,confidence,reachable,is_free,is_role,is_disposable,is_catch_all,suggestion,mailguard_score,sub_status',
    );
    expect(lines[1]).toBe(
      'nobody@acme.test,lead,5,invalid,rejected_email,,invalid,false,false,false,false,,2,no_such_user',
    );
    expect(lines[2]).toBe('x@nullmx.test,cold,1,invalid,no_mx,,invalid,false,false,false,false,,1,null_mx');
    const page = await results(apiKey, created.body.id);
    expect(page.body.data.map((row) => row.result?.subStatus)).toEqual(['no_such_user', 'null_mx']);
  });

  it('finds the email column by its values when no header names it, or takes emailColumn', async () => {
    const { apiKey } = await signup();
    const byValue = await upload(apiKey, 'who,contact\nJohn,john.doe@acme.test\nJane,jane@acme.test\n');
    expect(byValue.status).toBe(202);
    const named = await upload(apiKey, 'work,home\njohn.doe@acme.test,nobody@acme.test\n', { emailColumn: 'home' });
    expect(named.status).toBe(202);
    await settled(apiKey, named.body.id);
    expect((await results(apiKey, named.body.id)).body.data[0]).toMatchObject({
      email: 'nobody@acme.test',
      result: { reason: 'rejected_email' },
    });
  });

  it("charges nothing for duplicates (after normalisation) and syntax failures; a duplicate carries its first row's result", async () => {
    const { apiKey, account } = await signup();
    const csv = 'email\njohn.doe@acme.test\nJohn.Doe@ACME.test\nnot-an-address\njane@acme.test\n';
    const created = await upload(apiKey, csv);
    expect(created.body).toMatchObject({ total: 4, duplicates: 1, creditsHeld: 2 });
    const done = await settled(apiKey, created.body.id);
    expect(done).toMatchObject({ processed: 4, counts: { valid: 3, risky: 0, invalid: 1 }, creditsCharged: 2 });
    expect((await results(apiKey, created.body.id)).body.data[1]).toMatchObject({
      row: 2,
      email: 'John.Doe@ACME.test',
      result: { reason: 'accepted_email' },
    });
    const credits = await api<{ balance: number; held: number }>('GET', '/v1/credits', { key: apiKey });
    expect(credits.body).toMatchObject({ balance: account.credits - 2, held: 0 });
    expect((await results(apiKey, created.body.id, '&status=invalid')).body.total).toBe(1);
  });
});

describe('upload errors', () => {
  it('400 without a file, without an email column, or with an emailColumn that is not a header', async () => {
    const { apiKey } = await signup();
    const form = new FormData();
    form.append('name', 'nothing');
    const none = await fetch(`${url}/v1/lists`, { method: 'POST', headers: { 'X-API-Key': apiKey }, body: form });
    expect(none.status).toBe(400);
    expect(await none.json()).toEqual({ error: expect.any(String), code: 'bad_request' });
    expect((await upload(apiKey, 'name,city\nJohn,Rome\n')).status).toBe(400);
    const wrong = await upload(apiKey, 'email\njohn.doe@acme.test\n', { emailColumn: 'mail' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toMatch(/emailColumn/);
    expect((await api<{ total: number }>('GET', '/v1/lists', { key: apiKey })).body.total).toBe(0);
  });

  it('402 when the balance is short of the chargeable rows, and nothing is kept or held', async () => {
    const { apiKey, account } = await signup();
    await database.setBalance(account.id, 2);
    const short = await upload(apiKey, 'email\njohn.doe@acme.test\njane@acme.test\ninfo@acme.test\n');
    expect(short.status).toBe(402);
    expect(short.body).toMatchObject({ code: 'insufficient_credits' });
    expect((await api<{ total: number }>('GET', '/v1/lists', { key: apiKey })).body.total).toBe(0);
    expect((await api('GET', '/v1/credits', { key: apiKey })).body).toMatchObject({ balance: 2, held: 0 });
  });

  it('413 over 50 MB or over 1,000,000 rows', async () => {
    const { apiKey } = await signup();
    const big = Buffer.alloc(51 * 1024 * 1024, 'a');
    big.write('email\n');
    expect((await upload(apiKey, big)).status).toBe(413);
    const many = `email\n${'x\n'.repeat(1_000_001)}`;
    expect((await upload(apiKey, many)).status).toBe(413);
    expect((await api<{ total: number }>('GET', '/v1/lists', { key: apiKey })).body.total).toBe(0);
  });
});

describe('lists (#5–8)', () => {
  it("pages the account's lists; another account's list is 404", async () => {
    const owner = await signup();
    const created = await upload(owner.apiKey, 'email\njohn.doe@acme.test\n', { name: 'Leads' });
    const page = await api<{ data: List[]; page: number; limit: number; total: number }>('GET', '/v1/lists?limit=10', {
      key: owner.apiKey,
    });
    expect(page.body).toMatchObject({ page: 1, limit: 10, total: 1 });
    expect(page.body.data[0]).toMatchObject({ id: created.body.id, name: 'Leads' });
    const stranger = await signup();
    for (const path of [`/v1/lists/${created.body.id}`, `/v1/lists/${created.body.id}/results`, '/v1/lists/lst_nope']) {
      expect((await api('GET', path, { key: stranger.apiKey })).status).toBe(404);
    }
    expect((await api('DELETE', `/v1/lists/${created.body.id}`, { key: stranger.apiKey })).status).toBe(404);
  });

  it('cancels a running list, releasing what it holds, and deletes a finished one', async () => {
    const { apiKey, account } = await signup();
    // Greylisted addresses keep the list running (retried as delayed jobs).
    const rows = Array.from({ length: 5 }, (_, i) => `slow${i}@greylist.test`).join('\n');
    const created = await upload(apiKey, `email\n${rows}\n`);
    expect(created.body.creditsHeld).toBe(5);
    const cancelled = await api<List>('DELETE', `/v1/lists/${created.body.id}`, { key: apiKey });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', creditsHeld: 0 });
    const credits = await api<{ balance: number; held: number }>('GET', '/v1/credits', { key: apiKey });
    expect(credits.body).toEqual({
      balance: account.credits - cancelled.body.creditsCharged,
      held: 0,
      currency: 'credits',
    });
    expect((await api('DELETE', `/v1/lists/${created.body.id}`, { key: apiKey })).status).toBe(204);
    expect((await api('GET', `/v1/lists/${created.body.id}`, { key: apiKey })).status).toBe(404);
  });

  it('refuses bad result queries with 400 and read-only keys on upload with 403', async () => {
    const { apiKey } = await signup();
    const created = await upload(apiKey, 'email\njohn.doe@acme.test\n');
    expect((await api('GET', `/v1/lists/${created.body.id}/results?format=xml`, { key: apiKey })).status).toBe(400);
    expect((await api('GET', `/v1/lists/${created.body.id}/results?status=great`, { key: apiKey })).status).toBe(400);
    const reader = await api<{ key: string }>('POST', '/v1/keys', {
      key: apiKey,
      body: { name: 'reader', scope: 'read-only' },
    });
    expect((await upload(reader.body.key, 'email\njohn.doe@acme.test\n')).status).toBe(403);
    expect((await api('GET', `/v1/lists/${created.body.id}`, { key: reader.body.key })).status).toBe(200);
  });
});

describe('greylisting', () => {
  it('retries greylisted rows as delayed jobs, then settles them as unknown and refunds them', async () => {
    const { apiKey, account } = await signup();
    const commandsBefore = lab.stats('mx.bulk.test').commands.length;
    const created = await upload(apiKey, 'email\nlater@stubborn.test\njohn.doe@acme.test\n');
    expect(created.body.creditsHeld).toBe(2);
    const done = await settled(apiKey, created.body.id);
    expect(done).toMatchObject({ status: 'completed', processed: 2, creditsCharged: 1 });
    const rows = (await results(apiKey, created.body.id)).body.data;
    expect(rows.map((row) => [row.email, row.result?.reason])).toEqual([
      ['later@stubborn.test', 'unknown'],
      ['john.doe@acme.test', 'accepted_email'],
    ]);
    // The first probe and three retries (delayed jobs).
    const asked = lab
      .stats('mx.bulk.test')
      .commands.slice(commandsBefore)
      .filter((command) => command === 'RCPT TO:<later@stubborn.test>');
    expect(asked).toHaveLength(4);
    // Held at upload; the answered row paid out of the hold as it settled; the unknown one released at the end.
    const ledger = await database.query<{ kind: string; delta: number }>(
      "SELECT kind, delta FROM credit_transactions WHERE account_id = $1 AND split_part(ref, '.', 1) = $2 ORDER BY id",
      [account.id, created.body.id],
    );
    expect(ledger).toEqual([
      { kind: 'hold', delta: -2 },
      { kind: 'release', delta: 1 },
      { kind: 'charge', delta: -1 },
      { kind: 'release', delta: 1 },
    ]);
    expect((await api('GET', '/v1/credits', { key: apiKey })).body).toMatchObject({
      balance: account.credits - 1,
      held: 0,
    });
  });
});

describe('webhooks', () => {
  it("POSTs the finished list, signed with the account's webhook secret, retrying after a failure", async () => {
    const { apiKey, webhookSecret } = await signup();
    const received: Array<{ body: string; signature: string | undefined }> = [];
    let delivered: () => void;
    const done = new Promise<void>((resolve) => (delivered = resolve));
    const server: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        received.push({ body, signature: req.headers['x-mailguard-signature'] as string | undefined });
        // The first delivery fails: the second one, after the backoff, succeeds.
        res.writeHead(received.length === 1 ? 500 : 200).end();
        if (received.length === 2) delivered();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as { port: number }).port;
      const created = await upload(apiKey, 'email\njohn.doe@acme.test\n', {
        webhookUrl: `http://127.0.0.1:${port}/hook`,
      });
      expect(created.status).toBe(202);
      await done;
      const [, last] = received;
      expect(last.signature).toBe(`sha256=${createHmac('sha256', webhookSecret).update(last.body).digest('hex')}`);
      expect(JSON.parse(last.body)).toMatchObject({ id: created.body.id, status: 'completed', processed: 1, total: 1 });
    } finally {
      server.close();
    }
  });
});

describe('crash safety', () => {
  it('SIGKILL of an smtp-worker and the list worker during a 5,000-row list: every row one result, one charge', async () => {
    const { apiKey, account } = await signup();
    await database.setBalance(account.id, 10_000);
    const rows: string[] = [];
    for (let d = 0; d < BULK_DOMAINS; d++) for (let i = 0; i < 125; i++) rows.push(`user${i}@bulk${d}.test`);
    const created = await upload(apiKey, `email\n${rows.join('\n')}\n`);
    expect(created.body).toMatchObject({ total: 5_000, creditsHeld: 5_000 });
    // Kill both once the list is under way, then start them again.
    for (;;) {
      const { body } = await api<List>('GET', `/v1/lists/${created.body.id}`, { key: apiKey });
      if (body.processed > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await Promise.all((['smtp-worker', 'list-worker'] as const).map((kind) => workers.get(kind)?.stop('SIGKILL')));
    await Promise.all([startWorker('smtp-worker'), startWorker('list-worker')]);
    const done = await settled(apiKey, created.body.id, 150_000);
    expect(done).toMatchObject({
      status: 'completed',
      processed: 5_000,
      counts: { valid: 2_520, risky: 0, invalid: 2_480 },
      creditsCharged: 5_000,
    });
    const [rowsSettled] = await database.query<{ settled: string; results: string }>(
      'SELECT count(*) FILTER (WHERE settled) AS settled, count(result) AS results FROM list_rows WHERE list_id = $1',
      [created.body.id],
    );
    expect(rowsSettled).toEqual({ settled: '5000', results: '5000' });
    // Held at upload, then paid out of the hold as groups settled (a release and a charge each), nothing left to release.
    const ledger = await database.query<{ kind: string; delta: string }>(
      `SELECT kind, sum(delta) AS delta FROM credit_transactions
       WHERE account_id = $1 AND split_part(ref, '.', 1) = $2 GROUP BY kind ORDER BY kind`,
      [account.id, created.body.id],
    );
    expect(ledger).toEqual([
      { kind: 'charge', delta: '-5000' },
      { kind: 'hold', delta: '-5000' },
      { kind: 'release', delta: '5000' },
    ]);
    const [final] = await database.query<{ releases: string }>(
      "SELECT count(*) AS releases FROM credit_transactions WHERE account_id = $1 AND kind = 'release' AND ref = $2",
      [account.id, created.body.id],
    );
    expect(final.releases).toBe('0');
    expect((await api('GET', '/v1/credits', { key: apiKey })).body).toMatchObject({ balance: 5_000, held: 0 });
  });
});
