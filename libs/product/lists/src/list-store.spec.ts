import type { DataSource } from 'typeorm';
import { CreditLedger } from '@mailguard/credits';
import { createDataSource, runMigrations } from '@mailguard/db';
import type { VerificationResult } from '@mailguard/engine';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/services';
import { ListStore, SETTLE_LANES, type FeedScope, type UploadRow } from './list-store';

/** The list store's credits against a real Postgres: held at seal, charged out of the hold once per row as rows settle, the rest released at the end. */
let database: TestDatabase;
let source: DataSource;
let store: ListStore;
let accounts = 0;

beforeAll(async () => {
  database = await createTestDatabase();
  source = createDataSource({ url: database.url, poolSize: 4 });
  await source.initialize();
  await runMigrations(source);
  store = new ListStore(() => source);
});

afterAll(async () => {
  await source?.destroy();
  await database?.drop();
});

async function account(balance: number): Promise<string> {
  const id = `acc_lists_${++accounts}`;
  await database.query("INSERT INTO accounts (id, email, email_key, webhook_secret) VALUES ($1, $2, $2, 'secret')", [
    id,
    `${id}@example.test`,
  ]);
  if (balance > 0) await new CreditLedger(() => source).grant(id, balance, 'test credits');
  return id;
}

const result = (reachable: VerificationResult['reachable'], status: VerificationResult['status']) =>
  ({ reachable, status }) as VerificationResult;
const row = (n: number, email: string, key: string | null): UploadRow => ({
  row: n,
  fields: [email],
  email,
  key,
  domain: key ? 'acme.test' : null,
  result: key ? null : result('invalid', 'invalid'),
});

/** A list of 5 rows: 3 chargeable addresses, a repeat of the first and a syntax failure. */
async function upload(accountId: string): Promise<string> {
  const id = `lst_${accountId}`;
  await store.create({
    id,
    accountId,
    name: 'leads.csv',
    columns: ['email'],
    delimiter: ',',
    emailColumn: 0,
    webhookUrl: null,
  });
  await store.insertRows(id, [
    row(1, 'a@acme.test', 'a@acme.test'),
    row(2, 'b@acme.test', 'b@acme.test'),
    row(3, 'A@acme.test', 'a@acme.test'),
    row(4, 'nope', null),
    row(5, 'c@acme.test', 'c@acme.test'),
  ]);
  return id;
}

async function credits(accountId: string) {
  const [account] = await database.query<{ balance: number; held: number }>(
    'SELECT balance, held FROM accounts WHERE id = $1',
    [accountId],
  );
  const ledger = await database.query(
    "SELECT kind, delta FROM credit_transactions WHERE account_id = $1 AND reason <> 'test credits' ORDER BY id",
    [accountId],
  );
  return { ...account, ledger };
}

async function usageOf(accountId: string) {
  return database.query('SELECT list_id, checks FROM list_usage WHERE account_id = $1 ORDER BY list_id, day', [
    accountId,
  ]);
}

it('holds one credit per chargeable row when the list is sealed, and nothing when the balance is short', async () => {
  const poor = await account(2);
  const refused = await upload(poor);
  expect(await store.seal(refused, poor)).toEqual({ chargeable: 3, sealed: false });
  expect(await credits(poor)).toEqual({ balance: 2, held: 0, ledger: [] });
  expect(await store.find(refused)).toBeNull();

  const rich = await account(10);
  const id = await upload(rich);
  expect(await store.seal(id, rich)).toEqual({ chargeable: 3, sealed: true });
  expect(await credits(rich)).toEqual({ balance: 7, held: 3, ledger: [{ kind: 'hold', delta: -3 }] });
  expect((await store.find(id))?.view).toMatchObject({
    status: 'queued',
    total: 5,
    processed: 1,
    duplicates: 1,
    creditsHeld: 3,
    counts: { invalid: 1 },
  });
});

it("analyses the rows' table as a big list is sealed: the planner knows its rows before the first settlement", async () => {
  const owner = await account(10_000);
  const id = `lst_big_${owner}`;
  await store.create({
    id,
    accountId: owner,
    name: 'big.csv',
    columns: ['email'],
    delimiter: ',',
    emailColumn: 0,
    webhookUrl: null,
  });
  await store.insertRows(
    id,
    Array.from({ length: 10_000 }, (_, index) => row(index + 1, `p${index}@acme.test`, `p${index}@acme.test`)),
  );
  expect(await store.seal(id, owner, 10_000)).toEqual({ chargeable: 10_000, sealed: true });
  // ANALYZE counts a table this small exactly; without it (autovacuum lags a bulk load, or is off) it is unknown.
  const [{ estimated, rows }] = await database.query<{ estimated: number; rows: number }>(
    "SELECT c.reltuples::int AS estimated, (SELECT count(*)::int FROM list_rows) AS rows FROM pg_class c WHERE c.relname = 'list_rows'",
  );
  expect(estimated).toBe(rows);
});

it('settles a row once however often its job runs, charges it out of the hold, and releases at completion what unknown results did not use', async () => {
  const accountId = await account(10);
  const id = await upload(accountId);
  await store.seal(id, accountId);
  await store.start(id);

  expect(
    await store.settle(id, [
      { row: 1, result: result('safe', 'valid') },
      { row: 2, result: result('unknown', 'risky') },
    ]),
  ).toEqual({ rows: [1, 2], finished: null });
  // The job of row 1 runs again: nothing moves, and it settled no row.
  expect(await store.settle(id, [{ row: 1, result: result('safe', 'valid') }])).toEqual({ rows: [], finished: null });
  expect((await store.find(id))?.view).toMatchObject({
    processed: 4,
    creditsHeld: 2,
    creditsCharged: 1,
    counts: { valid: 2, risky: 1, invalid: 1 },
  });
  expect(await credits(accountId)).toMatchObject({ balance: 7, held: 2 });

  const { rows, finished } = await store.settle(id, [{ row: 5, result: result('invalid', 'invalid') }]);
  expect(rows).toEqual([5]);
  expect(finished?.view).toMatchObject({
    status: 'completed',
    processed: 5,
    creditsHeld: 0,
    creditsCharged: 2,
    completedAt: expect.any(String),
  });
  expect(await credits(accountId)).toEqual({
    balance: 8,
    held: 0,
    ledger: [
      { kind: 'hold', delta: -3 },
      { kind: 'release', delta: 1 },
      { kind: 'charge', delta: -1 },
      { kind: 'release', delta: 1 },
      { kind: 'charge', delta: -1 },
      { kind: 'release', delta: 1 },
    ],
  });
  // Usage: every row on the day it settled (the syntax failure at upload, the repeat with its first row).
  expect(await usageOf(accountId)).toEqual([{ list_id: id, checks: 5 }]);
});

it("pauses an account's running lists: nothing more fed, rows in flight settle, credits held, the end only once resumed", async () => {
  const accountId = await account(10);
  const id = await upload(accountId);
  await store.seal(id, accountId);
  await store.start(id);
  expect(await store.feeding(id)).toBe(true);

  expect(await source.transaction((manager) => store.pauseAccount(manager, accountId))).toEqual([id]);
  expect(await store.feeding(id)).toBe(false);
  expect(await store.start(id)).toBeNull();
  expect(await store.running()).not.toContain(id);
  // Every row settles while paused: counted and charged, but the list does not end and keeps its hold.
  expect(
    await store.settle(id, [
      { row: 1, result: result('safe', 'valid') },
      { row: 2, result: result('safe', 'valid') },
      { row: 5, result: result('unknown', 'risky') },
    ]),
  ).toEqual({ rows: [1, 2, 5], finished: null });
  expect((await store.find(id))?.view).toMatchObject({
    status: 'paused',
    processed: 5,
    creditsHeld: 1,
    creditsCharged: 2,
  });
  expect(await credits(accountId)).toMatchObject({ held: 1 });

  expect(await source.transaction((manager) => store.resumeAccount(manager, accountId))).toEqual([id]);
  const ended = await store.completeIfDone(id);
  expect(ended?.view).toMatchObject({ status: 'completed', creditsHeld: 0, creditsCharged: 2 });
  expect(await credits(accountId)).toEqual({
    balance: 8,
    held: 0,
    ledger: [
      { kind: 'hold', delta: -3 },
      { kind: 'release', delta: 2 },
      { kind: 'charge', delta: -2 },
      { kind: 'release', delta: 1 },
    ],
  });
});

it('releases everything not charged when a running list is cancelled, once', async () => {
  const accountId = await account(10);
  const id = await upload(accountId);
  await store.seal(id, accountId);
  await store.start(id);
  await store.settle(id, [{ row: 2, result: result('safe', 'valid') }]);

  expect((await store.cancel(id, accountId))?.view).toMatchObject({
    status: 'cancelled',
    creditsHeld: 0,
    creditsCharged: 1,
  });
  expect(await store.cancel(id, accountId)).toBeNull();
  expect(await store.settle(id, [{ row: 1, result: result('safe', 'valid') }])).toEqual({ rows: [], finished: null });
  expect(await credits(accountId)).toEqual({
    balance: 9,
    held: 0,
    ledger: [
      { kind: 'hold', delta: -3 },
      { kind: 'release', delta: 1 },
      { kind: 'charge', delta: -1 },
      { kind: 'release', delta: 2 },
    ],
  });
  // What it really settled: the syntax failure at upload and row 2.
  expect(await usageOf(accountId)).toEqual([{ list_id: id, checks: 2 }]);
});

/** SETTLE_LANES settlements of row 1 (the first settles it, the others find it settled): every lane of the list busy. */
const busyLanes = (id: string) =>
  Array.from({ length: SETTLE_LANES }, () => store.settle(id, [{ row: 1, result: result('safe', 'valid') }]));

it('settles the groups that arrive while every lane of their list is busy together, each answered with its own rows', async () => {
  const accountId = await account(10);
  const id = await upload(accountId);
  await store.seal(id, accountId);
  await store.start(id);
  const lanes = busyLanes(id);
  // These two wait for a lane, then share one transaction (one charge in the ledger).
  const together = [
    store.settle(id, [{ row: 2, result: result('safe', 'valid') }]),
    // Row 1 again (its job ran twice): settled by a lane already, it is not this group's.
    store.settle(id, [
      { row: 5, result: result('invalid', 'invalid') },
      { row: 1, result: result('safe', 'valid') },
    ]),
  ];
  const settledByLanes = (await Promise.all(lanes)).map(({ rows }) => rows);
  expect(settledByLanes.flat()).toEqual([1]);
  const [second, third] = await Promise.all(together);
  expect(second.rows).toEqual([2]);
  expect(third).toEqual({ rows: [5], finished: null });
  // The list ends once, answered to the first group of the transaction that ended it.
  expect(second.finished?.view).toMatchObject({ status: 'completed', processed: 5, creditsCharged: 3 });
  expect((await credits(accountId)).ledger).toEqual([
    { kind: 'hold', delta: -3 },
    { kind: 'release', delta: 1 },
    { kind: 'charge', delta: -1 },
    { kind: 'release', delta: 2 },
    { kind: 'charge', delta: -2 },
  ]); // Every lane ended: the store keeps nothing of the list.
  expect(store.settlingLists).toBe(0);
});

it('settles each waiting group alone when their transaction together fails: only the group that cannot settle fails', async () => {
  const accountId = await account(10);
  const id = await upload(accountId);
  await store.seal(id, accountId);
  await store.start(id);
  const lanes = busyLanes(id);
  const [broken, other] = await Promise.allSettled([
    // Not a row number: Postgres refuses the statement.
    store.settle(id, [{ row: 2.5, result: result('safe', 'valid') }]),
    store.settle(id, [{ row: 5, result: result('safe', 'valid') }]),
  ]);
  await Promise.all(lanes);
  expect(broken).toMatchObject({
    status: 'rejected',
    reason: expect.objectContaining({ message: expect.stringContaining('integer') }),
  });
  expect(other).toEqual({ status: 'fulfilled', value: { rows: [5], finished: null } });
  expect((await store.find(id))?.view).toMatchObject({ processed: 4, creditsCharged: 2 });
  expect(store.settlingLists).toBe(0);
});

it('settles groups of one list side by side: the list row is key-share locked until the counters move', async () => {
  const accountId = await account(10);
  const id = await upload(accountId);
  await store.seal(id, accountId);
  await store.start(id);
  // Another group's settlement in flight: its key-share lock on the list row, not yet committed.
  const other = source.createQueryRunner();
  await other.connect();
  await other.startTransaction();
  await other.query('SELECT status FROM lists WHERE id = $1 FOR KEY SHARE', [id]);
  try {
    // Would wait for `other` if a settlement locked the list row for update from its start.
    expect(await store.settle(id, [{ row: 1, result: result('safe', 'valid') }])).toEqual({
      rows: [1],
      finished: null,
    });
    await other.commitTransaction();
    expect((await store.cancel(id, accountId))?.view).toMatchObject({
      status: 'cancelled',
      processed: 3,
      creditsCharged: 1,
    });
  } finally {
    await other.release();
  }
});

it("reads a feed's rows per domain or for the small domains together, never a dispatched row unless it went stale", async () => {
  const accountId = await account(20);
  const id = `lst_${accountId}`;
  await store.create({
    id,
    accountId,
    name: 'mixed.csv',
    columns: ['email'],
    delimiter: ',',
    emailColumn: 0,
    webhookUrl: null,
  });
  const at = (n: number, email: string): UploadRow => ({
    ...row(n, email, email.toLowerCase()),
    domain: email.split('@')[1],
  });
  await store.insertRows(id, [
    at(1, 'a@big.test'),
    at(2, 'b@big.test'),
    at(3, 'c@big.test'),
    at(4, 'a@one.test'),
    at(5, 'a@two.test'),
    at(6, 'd@big.test'),
    at(7, 'A@big.test'),
  ]);
  await store.seal(id, accountId);
  await store.start(id);
  // The repeat (row 7) is not the feed's: its first row carries it.
  expect(await store.pendingByDomain(id, 'new', 3)).toEqual(
    expect.arrayContaining([
      { domain: 'big.test', rows: 4 },
      { domain: null, rows: 2 },
    ]),
  );
  const big = await store.undispatchedOf(id, 'new', [{ domain: 'big.test', after: 0, take: 2 }]);
  expect(big.map((pending) => pending.row)).toEqual([1, 2]);
  expect(
    (await store.undispatchedOf(id, 'new', [{ domain: 'big.test', after: 2, take: 5 }])).map((pending) => pending.row),
  ).toEqual([3, 6]);
  expect((await store.undispatched(id, 'new', 10, null, ['big.test'])).map((pending) => pending.row)).toEqual([4, 5]);
  expect(
    (await store.undispatched(id, 'new', 10, { domain: 'one.test', row: 4 }, ['big.test'])).map(
      (pending) => pending.row,
    ),
  ).toEqual([5]);

  // Marks are per domain: big.test through row 2, one.test through row 4. A mark never moves back.
  await store.markDispatched(id, 'big.test', 2);
  await store.markDispatched(id, 'one.test', 4);
  await store.markDispatched(id, 'big.test', 1);
  expect(
    (await store.undispatchedOf(id, 'new', [{ domain: 'big.test', after: 0, take: 5 }])).map((pending) => pending.row),
  ).toEqual([3, 6]);
  expect(await store.pendingByDomain(id, 'new', 3)).toEqual([{ domain: null, rows: 3 }]);
  expect((await store.undispatched(id, 'new', 10, null, ['big.test'])).map((pending) => pending.row)).toEqual([5]);
  // Once the list is quiet its jobs are lost (`stale`): every unsettled row is read again, whatever the marks, but
  // for a row sent back by greylisting since, until its retry is as old.
  await store.greylistWait(id, [2], new Date(Date.now() - 60_000));
  const readAgain = async (scope: FeedScope) =>
    (await store.undispatchedOf(id, scope, [{ domain: 'big.test', after: 0, take: 5 }])).map((pending) => pending.row);
  expect(await readAgain('new')).toEqual([3, 6]);
  expect(await readAgain('stale')).toEqual([1, 3, 6]);
  expect(await store.pendingByDomain(id, 'stale', 3)).toEqual(
    expect.arrayContaining([
      { domain: 'big.test', rows: 3 },
      { domain: null, rows: 2 },
    ]),
  );
  await database.query("UPDATE list_rows SET retry_at = now() - interval '16 minutes' WHERE list_id = $1 AND row = 2", [
    id,
  ]);
  expect(await readAgain('stale')).toEqual([1, 2, 3, 6]);
  // Its process's jobs lost with it (the in-process driver): the marks go, and every unsettled row is new again.
  await store.running(true);
  expect(await readAgain('new')).toEqual([1, 2, 3, 6]);
});

it('says which rows of a running list wait for a greylisting retry and when the next is due, until they settle', async () => {
  const accountId = await account(10);
  const id = await upload(accountId);
  await store.seal(id, accountId);
  await store.start(id);
  expect((await store.find(id))?.view.greylisted).toBeNull();
  const soon = new Date(Date.now() + 60_000);
  const later = new Date(Date.now() + 120_000);
  // Row 1 waits with its repeat (row 3); row 2 waits longer.
  await store.greylistWait(id, [1], soon);
  await store.greylistWait(id, [2], later);
  expect((await store.find(id))?.view.greylisted).toEqual({ rows: 3, nextRetryAt: soon.toISOString() });
  expect((await store.page(accountId, 1, 10)).data[0].greylisted).toEqual({
    rows: 3,
    nextRetryAt: soon.toISOString(),
  });
  await store.settle(id, [{ row: 1, result: result('safe', 'valid') }]);
  expect((await store.find(id))?.view.greylisted).toEqual({ rows: 1, nextRetryAt: later.toISOString() });
  await store.settle(id, [
    { row: 2, result: result('safe', 'valid') },
    { row: 5, result: result('safe', 'valid') },
  ]);
  expect((await store.find(id))?.view).toMatchObject({ status: 'completed', greylisted: null });
});
