import type { DataSource } from 'typeorm';
import { MemoryResultCache } from '@mailguard/cache';
import { loadConfig } from '@mailguard/config';
import { CreditLedger } from '@mailguard/credits';
import type { ChargeKind } from '@mailguard/db';
import { createEngine, type VerificationResult } from '@mailguard/engine';
import type { CheckRequest } from '@mailguard/queue';
import { createMigratedDatabase, waitForLockWait, type TestDatabase } from '../../../../test/support/services';
import { ChargeSweep, SWEPT_REASON, type SweptCharge } from './charge-sweep';
import { ResultStore } from './result-store';

/**
 * The charge sweep against a real Postgres: two data sources stand for two gateways (each with its
 * sweep), and the answers land through the scoring stage's own write (ResultStore.save).
 */
let database: TestDatabase;
let sources: DataSource[];
let close: () => Promise<void>;
let accounts = 0;
const engine = createEngine(loadConfig({}));

beforeAll(async () => {
  ({ database, sources, close } = await createMigratedDatabase(2));
});

afterAll(() => close());

const ledgers = () => [0, 1].map((n) => new CreditLedger(() => sources[n]));
const stores = () => [0, 1].map((n) => new ResultStore(() => sources[n], new MemoryResultCache(), 60));

function sweepOf(n: number, swept: SweptCharge[] = [], errors: unknown[] = []): ChargeSweep {
  return new ChargeSweep({
    dataSource: () => sources[n],
    ledger: ledgers()[n],
    store: stores()[n],
    engine,
    onSwept: (charge) => swept.push(charge),
    onError: (error) => errors.push(error),
  });
}

async function account(balance: number): Promise<string> {
  const id = `acc_sweep_${++accounts}`;
  await database.query(
    "INSERT INTO accounts (id, email, email_key, balance, webhook_secret) VALUES ($1, $2, $2, 0, 'secret')",
    [id, `${id}@example.test`],
  );
  await ledgers()[0].grant(id, balance, 'test credits');
  return id;
}

/** A charge as a gateway takes it for `emails` (due `dueInMs` from now); its checks' requests. */
async function charged(
  accountId: string,
  ref: string,
  emails: string[],
  { dueInMs = 0, kind = 'batch' as ChargeKind } = {},
): Promise<CheckRequest[]> {
  const requests = emails.map((email, n) => ({
    requestId: `ver_${ref}_${n}`,
    email,
    deadlineAt: Date.now(),
    accountId,
    kind,
  }));
  const checks = requests.map(({ requestId: id, email }) => ({ id, email }));
  expect(await ledgers()[0].charge(accountId, emails.length, 'check', ref, { kind, checks, dueInMs })).not.toBeNull();
  return requests;
}

/** What a worker answers for an address a server accepted (reachable: it costs its credit). */
function accepted(email: string): VerificationResult {
  return { ...engine.concludeLocally(email), status: 'valid', reason: 'accepted_email', reachable: 'safe' };
}

async function ledgerOf(accountId: string) {
  return database.query<{ kind: string; delta: number; reason: string }>(
    "SELECT kind, delta, reason FROM credit_transactions WHERE account_id = $1 AND kind <> 'grant' ORDER BY id",
    [accountId],
  );
}

async function stored(accountId: string) {
  return database.query<{ id: string; credits: number; reachable: string }>(
    "SELECT id, credits, result->>'reachable' AS reachable FROM verifications WHERE account_id = $1 ORDER BY id",
    [accountId],
  );
}

/**
 * Runs `work` in a transaction of the second gateway and keeps it open until `commit()`: its
 * writes and row locks held meanwhile. `ready` once `work` is done.
 */
function heldOpen(work: (runner: Pick<DataSource, 'query'>) => Promise<unknown>) {
  let ready: () => void = () => undefined;
  let commit: () => void = () => undefined;
  const readyNow = new Promise<void>((resolve) => (ready = resolve));
  const commitNow = new Promise<void>((resolve) => (commit = resolve));
  const done = sources[1].transaction(async (runner) => {
    await work(runner);
    ready();
    await commitNow;
  });
  return {
    ready: readyNow,
    commit: async () => {
      commit();
      await done;
    },
  };
}

/** The account's row locked by another transaction: the sweep's refund waits there, after its claims. */
const accountLocked = (accountId: string) =>
  heldOpen((runner) => runner.query('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [accountId]));

async function balance(accountId: string): Promise<number> {
  return (await ledgers()[0].balance(accountId)).balance;
}

describe('ChargeSweep.settleOne', () => {
  it('refunds a due charge none of whose checks was answered, once, and stores each as unknown', async () => {
    const id = await account(10);
    await charged(id, `bat_${id}`, ['a@lost.test', 'b@lost.test']);
    const sweep = sweepOf(0);
    expect(await sweep.settleOne()).toMatchObject({ charge: { accountId: id, ref: `bat_${id}` }, refunded: 2 });
    expect(await sweep.settleOne()).toBeNull();
    expect(await sweepOf(1).settleOne()).toBeNull();
    expect(await balance(id)).toBe(10);
    expect(await ledgerOf(id)).toEqual([
      { kind: 'charge', delta: -2, reason: 'check' },
      { kind: 'refund', delta: 2, reason: SWEPT_REASON },
    ]);
    expect(await stored(id)).toEqual([
      { id: `ver_bat_${id}_0`, credits: 0, reachable: 'unknown' },
      { id: `ver_bat_${id}_1`, credits: 0, reachable: 'unknown' },
    ]);
  });

  it('keeps what its answers cost: a batch with one answer stored gets the other back', async () => {
    const id = await account(10);
    const [first] = await charged(id, `bat_${id}`, ['a@half.test', 'b@half.test']);
    await stores()[1].save(first, accepted(first.email));
    expect(await sweepOf(0).settleOne()).toMatchObject({ refunded: 1 });
    expect(await balance(id)).toBe(9);
    expect(await stored(id)).toEqual([
      { id: `ver_bat_${id}_0`, credits: 1, reachable: 'safe' },
      { id: `ver_bat_${id}_1`, credits: 0, reachable: 'unknown' },
    ]);
  });

  it('refunds nothing when every answer landed (the workers finished for a stopped gateway), and closes the charge', async () => {
    const id = await account(10);
    const requests = await charged(id, `bat_${id}`, ['a@done.test', 'b@done.test']);
    for (const request of requests) await stores()[1].save(request, accepted(request.email));
    expect(await sweepOf(0).settleOne()).toMatchObject({ charge: { ref: `bat_${id}` }, refunded: 0 });
    expect(await sweepOf(0).settleOne()).toBeNull();
    expect(await ledgerOf(id)).toEqual([{ kind: 'charge', delta: -2, reason: 'check' }]);
  });

  it("refunds a finder's charge whole: its answer was only ever its gateway's", async () => {
    const id = await account(10);
    await ledgers()[0].charge(id, 1, 'finder', `fnd_${id}`, { kind: 'finder', checks: [], dueInMs: 0 });
    expect(await sweepOf(0).settleOne()).toMatchObject({ refunded: 1 });
    expect(await balance(id)).toBe(10);
    expect(await stored(id)).toEqual([]);
  });

  it('leaves a charge that is not due yet, and finds nothing of one its gateway settled', async () => {
    const id = await account(10);
    await charged(id, `chk_${id}_later`, ['a@later.test'], { dueInMs: 60_000, kind: 'single' });
    await charged(id, `chk_${id}_settled`, ['a@settled.test'], { kind: 'single' });
    expect(await ledgers()[0].settle(id, `chk_${id}_settled`, 0, 'settled')).toMatchObject({ closed: true });
    expect(await sweepOf(0).settleOne()).toBeNull();
    expect(await database.query('SELECT ref FROM open_charges WHERE account_id = $1', [id])).toEqual([
      { ref: `chk_${id}_later` },
    ]);
  });
});

describe('the sweep racing an answer as it lands', () => {
  it('an answer in flight when the sweep claims its check: the sweep waits for it and refunds nothing', async () => {
    const id = await account(10);
    const [request] = await charged(id, `chk_${id}`, ['a@inflight.test'], { kind: 'single' });
    const landing = heldOpen((runner) => stores()[1].record(request, accepted(request.email), runner));
    await landing.ready;
    const sweeping = sweepOf(0).settleOne();
    await waitForLockWait(database);
    await landing.commit();
    expect(await sweeping).toMatchObject({ refunded: 0 });
    expect(await stored(id)).toEqual([{ id: request.requestId, credits: 1, reachable: 'safe' }]);
    expect(await ledgerOf(id)).toEqual([{ kind: 'charge', delta: -1, reason: 'check' }]);
  });

  it('an answer landing while the sweep settles: it is dropped for the unknown the sweep stored, which it refunded', async () => {
    const id = await account(10);
    const [request] = await charged(id, `chk_${id}`, ['a@late.test'], { kind: 'single' });
    // The sweep's refund waits on the account's row, after its claim: the answer lands meanwhile.
    const locked = accountLocked(id);
    await locked.ready;
    const sweeping = sweepOf(0).settleOne();
    await waitForLockWait(database);
    const landing = stores()[1].save(request, accepted(request.email));
    await waitForLockWait(database, 2);
    await locked.commit();
    expect(await sweeping).toMatchObject({ refunded: 1 });
    await landing;
    expect(await stored(id)).toEqual([{ id: request.requestId, credits: 0, reachable: 'unknown' }]);
    expect(await balance(id)).toBe(10);
  });

  it('two gateways sweeping while half the answers land: every charge costs exactly what its stored answer costs', async () => {
    const id = await account(200);
    const requests = (
      await Promise.all(
        Array.from({ length: 100 }, (_, n) =>
          charged(id, `chk_${id}_${n}`, [`user${n}@race.test`], { kind: 'single' }),
        ),
      )
    ).flat();
    const swept: SweptCharge[] = [];
    const errors: unknown[] = [];
    const sweeps = [sweepOf(0, swept, errors), sweepOf(1, swept, errors)];
    await Promise.all([
      ...sweeps.map((sweep) => sweep.sweep()),
      ...requests
        .filter((_, n) => n % 2 === 0)
        .map((request, n) => stores()[n % 2].save(request, accepted(request.email))),
    ]);
    expect(errors).toEqual([]);
    expect(swept.map(({ charge }) => charge.ref).sort()).toEqual(requests.map((_, n) => `chk_${id}_${n}`).sort());
    const perCharge = await database.query<{ ref: string; charged: number; refunded: number; refunds: number }>(
      `SELECT ref, -sum(delta) FILTER (WHERE kind = 'charge') AS charged,
         coalesce(sum(delta) FILTER (WHERE kind = 'refund'), 0)::int AS refunded, count(*) FILTER (WHERE kind = 'refund')::int AS refunds
       FROM credit_transactions WHERE account_id = $1 AND kind <> 'grant' GROUP BY ref`,
      [id],
    );
    const costs = new Map((await stored(id)).map((row) => [row.id, row.credits]));
    expect(costs.size).toBe(100);
    for (const row of perCharge) {
      expect(row.refunds).toBeLessThanOrEqual(1);
      expect(Number(row.charged) - row.refunded).toBe(costs.get(`ver_${row.ref}_0`));
    }
    expect(await balance(id)).toBe(200 - [...costs.values()].reduce((sum, cost) => sum + cost, 0));
  });
});

describe('ChargeSweep timer', () => {
  it('sweeps at start and again when the next charge is due, and holds no timer after shutdown', async () => {
    const id = await account(10);
    await charged(id, `chk_${id}`, ['a@timer.test'], { dueInMs: 300, kind: 'single' });
    let swept: (charge: SweptCharge) => void = () => undefined;
    const done = new Promise<SweptCharge>((resolve) => (swept = resolve));
    const sweep = new ChargeSweep({
      dataSource: () => sources[0],
      ledger: ledgers()[0],
      store: stores()[0],
      engine,
      onSwept: (charge) => swept(charge),
      onError: (error) => {
        throw error;
      },
    });
    sweep.onApplicationBootstrap();
    expect(sweep.scheduled).toBe(true);
    expect(await done).toMatchObject({ charge: { ref: `chk_${id}` }, refunded: 1 });
    await sweep.beforeApplicationShutdown();
    expect(sweep.scheduled).toBe(false);
  });

  it('stops before its first sweep, and waits for a sweep under way before it says it has stopped', async () => {
    const idle = sweepOf(0);
    idle.onApplicationBootstrap();
    await idle.beforeApplicationShutdown();
    expect(idle.scheduled).toBe(false);

    const id = await account(10);
    await charged(id, `chk_${id}`, ['a@shutdown.test'], { kind: 'single' });
    const locked = accountLocked(id);
    await locked.ready;
    const events: string[] = [];
    const sweep = new ChargeSweep({
      dataSource: () => sources[0],
      ledger: ledgers()[0],
      store: stores()[0],
      engine,
      onSwept: () => events.push('swept'),
      onError: (error) => events.push(String(error)),
    });
    // Its first sweep, at start, waits on the account's row (its refund) when the shutdown comes.
    sweep.onApplicationBootstrap();
    await waitForLockWait(database);
    const stopped = sweep.beforeApplicationShutdown().then(() => events.push('stopped'));
    await locked.commit();
    await stopped;
    expect(events).toEqual(['swept', 'stopped']);
    expect(sweep.scheduled).toBe(false);
  });
});
