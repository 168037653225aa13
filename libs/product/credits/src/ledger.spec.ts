import type { DataSource } from 'typeorm';
import { createDataSource } from '@mailguard/db';
import { createMigratedDatabase, waitForLockWait, type TestDatabase } from '../../../../test/support/services';
import { CreditLedger, type UsageRecord } from './ledger';

/** The ledger against a real Postgres: two ledgers stand for two gateways sharing one account. */
let database: TestDatabase;
let sources: DataSource[];
let close: () => Promise<void>;
let accounts = 0;

beforeAll(async () => {
  ({ database, sources, close } = await createMigratedDatabase(2));
});

afterAll(() => close());

async function account(balance: number): Promise<string> {
  const id = `acc_ledger_${++accounts}`;
  await database.query(
    "INSERT INTO accounts (id, email, email_key, balance, webhook_secret) VALUES ($1, $2, $2, 0, 'secret')",
    [id, `${id}@example.test`],
  );
  await new CreditLedger(() => sources[0]).grant(id, balance, 'test credits');
  return id;
}

const usage = (n: number): UsageRecord => ({
  id: `ver_${accounts}_${n}`,
  kind: 'single',
  resultJson: JSON.stringify({ email: `user${n}@example.test`, status: 'valid', reason: 'accepted_email', n }),
});

describe('CreditLedger.chargeOne', () => {
  it('serves exactly the balance when concurrent checks from two gateways outnumber it, each with its own rows', async () => {
    const id = await account(100);
    const seen: Array<[string, number]> = [];
    const ledgers = sources.map(
      (source) =>
        new CreditLedger(
          () => source,
          (accountId, balance) => seen.push([accountId, balance]),
        ),
    );
    const answers = await Promise.all(
      Array.from({ length: 300 }, (_, n) => ledgers[n % 2].chargeOne(id, 'single check', `chk_${id}_${n}`, usage(n))),
    );

    const served = answers.filter((balance): balance is number => balance !== null);
    expect(served).toHaveLength(100);
    // Every served check saw its own balance after: 99 down to 0, once each.
    expect([...served].sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, n) => n));
    const [row] = await database.query<{ balance: number; charges: string; usage: string; sum: string }>(
      `SELECT balance,
        (SELECT count(*) FROM credit_transactions WHERE account_id = $1 AND kind = 'charge') AS charges,
        (SELECT count(*) FROM verifications WHERE account_id = $1) AS usage,
        (SELECT sum(delta) FROM credit_transactions WHERE account_id = $1) AS sum
       FROM accounts WHERE id = $1`,
      [id],
    );
    expect(row).toEqual({ balance: 0, charges: '100', usage: '100', sum: '0' });
    expect(seen.every(([accountId]) => accountId === id)).toBe(true);
    expect(seen.some(([, balance]) => balance === 0)).toBe(true);
  });

  it("stores the answer's text as the usage row, its email, status and reason taken from it", async () => {
    const id = await account(5);
    const resultJson = JSON.stringify({
      email: 'o\'brien+"x"@example.test',
      status: 'risky',
      reason: 'accept_all',
      cached: true,
      checks: { smtp: { message: 'Ok \\ "quoted" é' } },
    });
    const ledger = new CreditLedger(() => sources[0]);
    expect(
      await ledger.chargeOne(id, 'single check', `chk_${id}`, { id: `ver_${id}`, kind: 'single', resultJson }),
    ).toBe(4);
    const rows = await database.query(
      'SELECT id, email, kind, status, reason, credits, result FROM verifications WHERE account_id = $1',
      [id],
    );
    expect(rows).toEqual([
      {
        id: `ver_${id}`,
        email: 'o\'brien+"x"@example.test',
        kind: 'single',
        status: 'risky',
        reason: 'accept_all',
        credits: 1,
        result: JSON.parse(resultJson),
      },
    ]);
  });

  it('answers null and writes nothing when the balance is empty', async () => {
    const id = await account(0);
    expect(await new CreditLedger(() => sources[0]).chargeOne(id, 'single check', `chk_${id}`, usage(1))).toBeNull();
    const rows = await database.query('SELECT 1 FROM verifications WHERE account_id = $1', [id]);
    expect(rows).toHaveLength(0);
  });

  it('fails only the check whose ref was already charged when it shares a statement with others', async () => {
    const id = await account(10);
    const ledger = new CreditLedger(() => sources[0]);
    expect(await ledger.chargeOne(id, 'single check', `chk_${id}_used`, usage(100))).toBe(9);
    const answers = await Promise.allSettled([
      ledger.chargeOne(id, 'single check', `chk_${id}_a`, usage(101)),
      ledger.chargeOne(id, 'single check', `chk_${id}_used`, usage(102)),
      ledger.chargeOne(id, 'single check', `chk_${id}_b`, usage(103)),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((await ledger.balance(id)).balance).toBe(7);
  });

  it('relaxes the commit of its own statement only: the connection commits synchronously again afterwards', async () => {
    const id = await account(10);
    const single = createDataSource({ url: database.url, poolSize: 1 });
    await single.initialize();
    try {
      expect(await new CreditLedger(() => single).chargeOne(id, 'single check', `chk_${id}`, usage(1))).toBe(9);
      expect(await single.query('SHOW synchronous_commit')).toEqual([{ synchronous_commit: 'on' }]);
    } finally {
      await single.destroy();
    }
  });
});

async function credits(accountId: string) {
  const [row] = await database.query<{
    balance: number;
    held: number;
    ledger: Array<{ kind: string; delta: number; ref: string | null }> | null;
  }>(
    `SELECT balance, held,
       (SELECT json_agg(json_build_object('kind', kind, 'delta', delta, 'ref', ref) ORDER BY id)
        FROM credit_transactions WHERE account_id = $1 AND reason <> 'test credits') AS ledger
     FROM accounts WHERE id = $1`,
    [accountId],
  );
  return { balance: row.balance, held: row.held, ledger: row.ledger ?? [] };
}

describe('CreditLedger list holds', () => {
  it('holds from the balance into held with one row, and never more than the balance when holds race', async () => {
    const id = await account(100);
    const ledgers = sources.map((source) => new CreditLedger(() => source));
    const held = await Promise.all(
      ledgers.map((ledger, n) =>
        sources[n].transaction((manager) => ledger.hold(id, 60, `hold: list ${n}`, `lst_${id}_${n}`, manager)),
      ),
    );
    expect(held.filter(Boolean)).toHaveLength(1);
    const won = held.indexOf(true);
    expect(await credits(id)).toEqual({
      balance: 40,
      held: 60,
      ledger: [{ kind: 'hold', delta: -60, ref: `lst_${id}_${won}` }],
    });
  });

  it('charges settled list rows out of the hold (release + charge, the balance unmoved), then releases the rest', async () => {
    const id = await account(10);
    const ledger = new CreditLedger(() => sources[0]);
    await sources[0].transaction((manager) => ledger.hold(id, 8, 'hold: list', `lst_${id}`, manager));
    await sources[0].transaction((manager) => ledger.chargeHeld(id, 3, 'list rows', `lst_${id}.1`, manager));
    expect(await credits(id)).toMatchObject({ balance: 2, held: 5 });
    await sources[0].transaction((manager) => ledger.releaseHold(id, 5, 'release: list', `lst_${id}`, manager));
    expect(await credits(id)).toEqual({
      balance: 7,
      held: 0,
      ledger: [
        { kind: 'hold', delta: -8, ref: `lst_${id}` },
        { kind: 'release', delta: 3, ref: `lst_${id}.1` },
        { kind: 'charge', delta: -3, ref: `lst_${id}.1` },
        { kind: 'release', delta: 5, ref: `lst_${id}` },
      ],
    });
  });

  it('moves nothing when the transaction rolls back, and refuses a second charge of the same settlement', async () => {
    const id = await account(10);
    const ledger = new CreditLedger(() => sources[0]);
    await sources[0].transaction((manager) => ledger.hold(id, 4, 'hold: list', `lst_${id}`, manager));
    const rolledBack = sources[0].transaction(async (manager) => {
      await ledger.chargeHeld(id, 2, 'list rows', `lst_${id}.1`, manager);
      await ledger.releaseHold(id, 2, 'release: list', `lst_${id}`, manager);
      throw new Error('the list could not be ended');
    });
    await expect(rolledBack).rejects.toThrow('the list could not be ended');
    expect(await credits(id)).toMatchObject({ balance: 6, held: 4 });
    await sources[0].transaction((manager) => ledger.chargeHeld(id, 2, 'list rows', `lst_${id}.1`, manager));
    const again = sources[0].transaction((manager) => ledger.chargeHeld(id, 2, 'list rows', `lst_${id}.1`, manager));
    await expect(again).rejects.toMatchObject({ code: '23505' });
    expect(await credits(id)).toMatchObject({ balance: 6, held: 2 });
  });
});

describe('CreditLedger.grantSignup', () => {
  it('grants the base, and the work bonus as its own row, in the caller transaction', async () => {
    const ledger = new CreditLedger(() => sources[0]);
    const plain = await account(0);
    const work = await account(0);
    expect(await sources[0].transaction((manager) => ledger.grantSignup(plain, false, manager))).toBe(1_000);
    expect(await sources[0].transaction((manager) => ledger.grantSignup(work, true, manager))).toBe(2_500);
    expect((await credits(plain)).ledger).toEqual([{ kind: 'grant', delta: 1_000, ref: null }]);
    expect((await credits(work)).ledger).toEqual([
      { kind: 'grant', delta: 1_000, ref: null },
      { kind: 'grant', delta: 1_500, ref: null },
    ]);
  });
});

describe('CreditLedger open charges', () => {
  const checks = (id: string, n: number) =>
    Array.from({ length: n }, (_, i) => ({ id: `ver_${id}_${i}`, email: `user${i}@example.test` }));
  const open = async (id: string) =>
    database.query<{ ref: string; amount: number; kind: string; checks: unknown; later: boolean }>(
      'SELECT ref, amount, kind, checks, due_at > now() AS later FROM open_charges WHERE account_id = $1 ORDER BY due_at',
      [id],
    );

  it('opens the charge in its statement, with its checks and due time; nothing when the balance is short', async () => {
    const id = await account(3);
    const ledger = new CreditLedger(() => sources[0]);
    const batch = { kind: 'batch' as const, checks: checks(id, 2), dueInMs: 60_000 };
    expect(await ledger.charge(id, 2, 'batch check (2 addresses)', `bat_${id}`, batch)).toBe(1);
    expect(await ledger.charge(id, 2, 'batch check (2 addresses)', `bat_${id}_short`, batch)).toBeNull();
    expect(await open(id)).toEqual([
      { ref: `bat_${id}`, amount: 2, kind: 'batch', checks: checks(id, 2), later: true },
    ]);
    expect(await ledger.nextDue()).toBeGreaterThan(0);
  });

  it('settles once: the refund comes back with the close, a second settle closes and refunds nothing', async () => {
    const id = await account(5);
    const ledger = new CreditLedger(() => sources[0]);
    await ledger.charge(id, 3, 'batch check (3 addresses)', `bat_${id}`, {
      kind: 'batch',
      checks: checks(id, 3),
      dueInMs: 60_000,
    });
    expect(await ledger.settle(id, `bat_${id}`, 2, 'refund: unknown')).toEqual({ closed: true, balance: 4 });
    expect(await ledger.settle(id, `bat_${id}`, 2, 'refund: unknown')).toEqual({ closed: false, balance: 4 });
    expect(await open(id)).toEqual([]);
    expect((await credits(id)).ledger).toEqual([
      { kind: 'charge', delta: -3, ref: `bat_${id}` },
      { kind: 'refund', delta: 2, ref: `bat_${id}` },
    ]);
  });

  it('stores the answer in the settling transaction only when it closed the charge', async () => {
    const id = await account(5);
    const ledger = new CreditLedger(() => sources[0]);
    const finder = { kind: 'finder' as const, checks: [], dueInMs: 0 };
    await ledger.charge(id, 1, 'finder', `fnd_${id}`, finder);
    const answered: string[] = [];
    const answer = (label: string) => async (runner: Pick<DataSource, 'query'>) => {
      answered.push(label);
      await runner.query(
        "INSERT INTO verifications (id, account_id, email, kind, status, reason, credits, result) VALUES ($1, $2, 'a@example.test', 'finder', 'valid', 'accepted_email', 1, '{}')",
        [`ver_${id}_${label}`, id],
      );
    };
    await sources[0].transaction(async (sweep) => {
      expect(await ledger.takeDue(sweep)).toMatchObject({ ref: `fnd_${id}` });
    });
    expect(await ledger.settle(id, `fnd_${id}`, 0, 'finder', answer('late'))).toMatchObject({ closed: false });
    await ledger.charge(id, 1, 'finder', `fnd_${id}_2`, finder);
    expect(await ledger.settle(id, `fnd_${id}_2`, 0, 'finder', answer('kept'))).toEqual({ closed: true, balance: 3 });
    expect(answered).toEqual(['kept']);
    expect(await database.query('SELECT id FROM verifications WHERE account_id = $1', [id])).toEqual([
      { id: `ver_${id}_kept` },
    ]);
  });

  it('gives each due charge to one sweep (two gateways), oldest first, and none that is not due', async () => {
    const id = await account(10);
    const ledgers = sources.map((source) => new CreditLedger(() => source));
    const single = (dueInMs: number) => ({ kind: 'single' as const, checks: checks(id, 1), dueInMs });
    await ledgers[0].charge(id, 1, 'single check', `chk_${id}_old`, single(-2_000));
    await ledgers[0].charge(id, 1, 'single check', `chk_${id}_new`, single(-1_000));
    await ledgers[0].charge(id, 1, 'single check', `chk_${id}_later`, single(60_000));
    const taken: Array<string | null> = [];
    // The first sweep holds its charge while the second looks: it skips it and takes the next.
    await sources[0].transaction(async (first) => {
      taken.push((await ledgers[0].takeDue(first))?.ref ?? null);
      await sources[1].transaction(async (second) => {
        taken.push((await ledgers[1].takeDue(second))?.ref ?? null);
        taken.push((await ledgers[1].takeDue(second))?.ref ?? null);
      });
    });
    expect(taken).toEqual([`chk_${id}_old`, `chk_${id}_new`, null]);
    expect((await open(id)).map((row) => row.ref)).toEqual([`chk_${id}_later`]);
  });

  it("makes a gateway's settle wait for the sweep that holds its charge, then close nothing", async () => {
    const id = await account(5);
    const ledger = new CreditLedger(() => sources[0]);
    await ledger.charge(id, 1, 'single check', `chk_${id}`, { kind: 'single', checks: checks(id, 1), dueInMs: 0 });
    let settling: Promise<unknown> = Promise.resolve();
    await sources[0].transaction(async (sweep) => {
      await ledger.takeDue(sweep);
      settling = new CreditLedger(() => sources[1]).settle(id, `chk_${id}`, 1, 'refund: unknown');
      await waitForLockWait(database);
      await ledger.refund(id, 1, 'refund: swept', `chk_${id}`, sweep);
    });
    expect(await settling).toEqual({ closed: false, balance: 5 });
    expect((await credits(id)).ledger).toEqual([
      { kind: 'charge', delta: -1, ref: `chk_${id}` },
      { kind: 'refund', delta: 1, ref: `chk_${id}` },
    ]);
  });
});
