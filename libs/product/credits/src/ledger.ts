import type { DataSource, EntityManager } from 'typeorm';
import {
  AccountEntity,
  CreditTransactionEntity,
  queryPrepared,
  type ChargedCheck,
  type ChargeKind,
  RELAXED_COMMIT,
  type TransactionKind,
  type UsageKind,
} from '@mailguard/db';
import { CHECK_PRICE, signupGrants } from './pricing';

export interface Balance {
  balance: number;
  held: number;
}

export interface TransactionPage {
  data: Array<{
    id: string;
    delta: number;
    reason: string;
    ref: string | null;
    createdAt: string;
    balanceAfter: number;
    kind: TransactionKind;
  }>;
  page: number;
  limit: number;
  total: number;
}

type Runner = Pick<EntityManager, 'query'>;

/** A ledger row as the API shows it. */
function transaction(row: CreditTransactionEntity): TransactionPage['data'][number] {
  return {
    id: `txn_${row.id}`,
    delta: row.delta,
    kind: row.kind,
    reason: row.reason,
    ref: row.ref,
    createdAt: row.createdAt.toISOString(),
    balanceAfter: row.balanceAfter,
  };
}

interface PendingCharge {
  reason: string;
  ref: string;
  usage: UsageRecord;
  resolve(balance: number | null): void;
  reject(error: unknown): void;
}

interface ChargeQueue {
  items: PendingCharge[];
  statements: number;
}

const MAX_BATCH = 200;
const STATEMENTS_PER_ACCOUNT = 2;

/**
 * Charges a batch of single checks, $3 credits each, in one statement. The account row is locked
 * first (FOR UPDATE reads the latest committed balance), the first `taken` checks the balance pays
 * for are served in order, each with its ledger row (balance_after counting down) and its usage row.
 *
 * Its commit is relaxed (see RELAXED_COMMIT): the row lock is held until the commit, so a disk
 * flush there would also hold up the next batch; the usage rows are in the same transaction, so a
 * crash loses both or neither.
 */
const CHARGE_BATCH = `
  WITH items AS (
    SELECT * FROM jsonb_to_recordset($2::jsonb)
      AS item(n int, reason text, ref text, usage_id text, kind text, result jsonb)),
  locked AS (SELECT balance FROM accounts WHERE id = $1 FOR UPDATE),
  ${RELAXED_COMMIT},
  granted AS (
    SELECT balance AS before, least(balance / $3::int, jsonb_array_length($2::jsonb)) AS taken FROM locked, relaxed),
  moved AS (
    UPDATE accounts SET balance = accounts.balance - granted.taken * $3::int FROM granted
    WHERE accounts.id = $1 AND granted.taken > 0 RETURNING accounts.balance),
  served AS (
    SELECT items.*, granted.before - items.n * $3::int AS balance_after FROM items, granted WHERE items.n <= granted.taken),
  used AS (
    INSERT INTO verifications (id, account_id, email, kind, status, reason, credits, result)
    SELECT usage_id, $1, result->>'email', kind, result->>'status', result->>'reason', $3::int, result FROM served)
  INSERT INTO credit_transactions (account_id, delta, kind, reason, ref, balance_after)
  SELECT $1, -$3::int, 'charge', reason, ref, balance_after FROM served ORDER BY n
  RETURNING ref, balance_after`;

/** What a charge taken up front (`charge`) stays open for until it is settled. */
export interface OpenCharge {
  kind: ChargeKind;
  /** The checks it pays for; none for the finder, whose answer only its gateway ever holds. */
  checks: ChargedCheck[];
  /** From now until the charge sweep may take it: the check's deadline plus the sweep's margin. */
  dueInMs: number;
}

/** What `settle` did. */
export interface Settled {
  /** False when the charge sweep had taken the charge first: its refund stands, none is added. */
  closed: boolean;
  /** The balance after. */
  balance: number;
}

/** An open charge past its due time, taken by the charge sweep (`takeDue`). */
export interface DueCharge extends Omit<OpenCharge, 'dueInMs'> {
  accountId: string;
  ref: string;
  amount: number;
}

/** The `verifications` row of a check (its usage record): its email, status and reason are the result's. */
export interface UsageRecord {
  id: string;
  kind: UsageKind;
  /** The answer's JSON text, as served: stored as it is, never parsed or serialised again here. */
  resultJson: string;
}

/**
 * The credit ledger, the only writer of balances: every movement is one SQL statement that changes
 * the balance and appends the ledger row together (a CTE, raw SQL because the two must be one
 * atomic statement), so a row exists exactly when the balance moved. Charges and holds are
 * conditional (`balance >= amount`), so concurrent requests can never overdraw; a charge or refund
 * carries a `ref` that a unique index allows once, so a retried check is never charged twice. What
 * each movement amounts to is the pricing policy's (./pricing.ts). Movements that belong to a
 * larger change (an account created, a list queued or ended) take that transaction's manager.
 */
export class CreditLedger {
  /** Single-check charges waiting for their account's statement (see chargeOne). */
  private readonly waiting = new Map<string, ChargeQueue>();

  /** `onBalance` hears every balance this ledger moved (the gateway keeps its key cache current). */
  constructor(
    private readonly dataSource: () => DataSource,
    private readonly onBalance: (accountId: string, balance: number) => void = () => undefined,
  ) {}

  private moved(accountId: string, rows: Array<{ balance_after: number }>): number | null {
    if (rows.length === 0) return null;
    this.onBalance(accountId, rows[0].balance_after);
    return rows[0].balance_after;
  }

  /** Adds credits. Runs in the caller's transaction when one is given. */
  async grant(accountId: string, amount: number, reason: string, runner: Runner = this.dataSource()): Promise<number> {
    const rows: Array<{ balance_after: number }> = await runner.query(
      `WITH moved AS (UPDATE accounts SET balance = balance + $2 WHERE id = $1 RETURNING balance)
       INSERT INTO credit_transactions (account_id, delta, kind, reason, ref, balance_after)
       SELECT $1, $2, 'grant', $3, NULL, balance FROM moved RETURNING balance_after`,
      [accountId, amount, reason],
    );
    return this.moved(accountId, rows) as number;
  }

  /**
   * A new account's credits (pricing: the base grant, and the work-address bonus when earned), in
   * the transaction that creates the account. Returns the balance after.
   */
  async grantSignup(accountId: string, workAddress: boolean, runner: Runner): Promise<number> {
    let balance = 0;
    for (const { amount, reason } of signupGrants(workAddress))
      balance = await this.grant(accountId, amount, reason, runner);
    return balance;
  }

  /**
   * Takes `amount` up front, for an answer still to come, when the balance allows it; null (and
   * nothing taken) when it does not. The same statement opens the charge (`open_charges`) until
   * `settle` closes it, so that a charge whose gateway stopped before answering is found by the
   * charge sweep (`takeDue`). Its commit waits for the flush: the check's usage row is another
   * transaction, and one must never outlive the other.
   */
  async charge(
    accountId: string,
    amount: number,
    reason: string,
    ref: string,
    open: OpenCharge,
  ): Promise<number | null> {
    const rows: Array<{ balance_after: number }> = await this.dataSource().query(
      `WITH moved AS (UPDATE accounts SET balance = balance - $2 WHERE id = $1 AND balance >= $2 RETURNING balance),
       opened AS (
         INSERT INTO open_charges (account_id, ref, amount, kind, checks, due_at)
         SELECT $1, $4, $2, $5, $6::jsonb, now() + $7::double precision * interval '1 millisecond' FROM moved)
       INSERT INTO credit_transactions (account_id, delta, kind, reason, ref, balance_after)
       SELECT $1, -$2, 'charge', $3, $4, balance FROM moved RETURNING balance_after`,
      [accountId, amount, reason, ref, open.kind, JSON.stringify(open.checks), open.dueInMs],
    );
    return this.moved(accountId, rows);
  }

  /**
   * Closes a charge `charge` opened, its answer given: `refund` of it (what the answer does not
   * cost) comes back as one refund row in the same statement. A charge the sweep took first is
   * left as the sweep settled it (`closed` false). `answered`, when given, stores the answer in
   * the same transaction, only when this closed the charge: the sweep never refunds an answer
   * that landed, and an answer never lands for a charge the sweep refunded.
   */
  async settle(
    accountId: string,
    ref: string,
    refund: number,
    reason: string,
    answered?: (runner: Runner) => Promise<void>,
  ): Promise<Settled> {
    const close = async (runner: Runner): Promise<Settled> => {
      const [row]: Array<{ closed: boolean; balance_after: number }> = await runner.query(
        `WITH closed AS (DELETE FROM open_charges WHERE account_id = $1 AND ref = $2 RETURNING account_id),
         moved AS (
           UPDATE accounts SET balance = balance + $3 FROM closed
           WHERE accounts.id = closed.account_id AND $3 > 0 RETURNING accounts.balance),
         refunded AS (
           INSERT INTO credit_transactions (account_id, delta, kind, reason, ref, balance_after)
           SELECT $1, $3, 'refund', $4, $2, balance FROM moved RETURNING balance_after)
         SELECT EXISTS (SELECT 1 FROM closed) AS closed,
           coalesce((SELECT balance_after FROM refunded), (SELECT balance FROM accounts WHERE id = $1)) AS balance_after`,
        [accountId, ref, refund, reason],
      );
      if (!row.closed) {
        // The sweep's refund committed while this statement waited, after its snapshot: read it now.
        const [now]: Array<{ balance_after: number }> = await runner.query(
          'SELECT balance AS balance_after FROM accounts WHERE id = $1',
          [accountId],
        );
        return { closed: false, balance: this.moved(accountId, [now]) as number };
      }
      if (answered) await answered(runner);
      return { closed: true, balance: this.moved(accountId, [row]) as number };
    };
    return answered ? this.dataSource().transaction(close) : close(this.dataSource());
  }

  /**
   * The charge sweep's take: the oldest open charge past its due time that no other sweep holds,
   * closed in the caller's transaction, whose row lock keeps a gateway's `settle` waiting until it
   * commits (and then finding nothing to close). Null when none is due.
   */
  async takeDue(runner: Runner): Promise<DueCharge | null> {
    const rows: Array<{
      account_id: string;
      ref: string;
      amount: number;
      kind: DueCharge['kind'];
      checks: ChargedCheck[];
    }> = await runner.query(
      // A CTE: TypeORM answers a bare DELETE with its count beside the rows.
      `WITH taken AS (
         DELETE FROM open_charges WHERE (account_id, ref) IN (
           SELECT account_id, ref FROM open_charges WHERE due_at <= now() ORDER BY due_at LIMIT 1 FOR UPDATE SKIP LOCKED)
         RETURNING account_id, ref, amount, kind, checks)
       SELECT * FROM taken`,
    );
    if (rows.length === 0) return null;
    const [{ account_id: accountId, ref, amount, kind, checks }] = rows;
    return { accountId, ref, amount, kind, checks };
  }

  /** Milliseconds until the earliest open charge is due (0 when one is already); null when none is open. */
  async nextDue(): Promise<number | null> {
    const [row]: Array<{ ms: number | null }> = await this.dataSource().query(
      `SELECT greatest(0, ceil(extract(epoch FROM min(due_at) - now()) * 1000))::double precision AS ms FROM open_charges`,
    );
    return row.ms;
  }

  /**
   * Takes the price of one check for an answer already in hand (a cached result) and stores the check for the
   * account's usage with it. Concurrent calls for the same account share a statement: each
   * statement holds the account's row lock until it commits, so one statement per check would
   * queue on that lock; one per batch serves the batch in about the time of one. Each check still
   * gets its own ledger row, usage row and answer (null when the balance ran out before its turn).
   */
  chargeOne(accountId: string, reason: string, ref: string, usage: UsageRecord): Promise<number | null> {
    return new Promise((resolve, reject) => {
      let queue = this.waiting.get(accountId);
      if (!queue) {
        queue = { items: [], statements: 0 };
        this.waiting.set(accountId, queue);
      }
      queue.items.push({ reason, ref, usage, resolve, reject });
      if (queue.statements < STATEMENTS_PER_ACCOUNT) void this.drain(accountId, queue);
    });
  }

  /**
   * Sends the account's waiting charges, a batch per statement. Two statements per account may be
   * under way: the second waits on the row lock in Postgres, but it has already travelled, so the
   * database is not left idle while this process reads the first one's answer.
   */
  private async drain(accountId: string, queue: ChargeQueue): Promise<void> {
    queue.statements++;
    while (queue.items.length > 0) await this.serve(accountId, queue.items.splice(0, MAX_BATCH));
    queue.statements--;
    if (queue.statements === 0) this.waiting.delete(accountId);
  }

  private async serve(accountId: string, batch: PendingCharge[]): Promise<void> {
    try {
      // One JSON parameter, each result's text set in as it came (text arrays would be escaped in JavaScript).
      const items = batch.map(
        ({ reason, ref, usage }, index) =>
          `{"n":${index + 1},"reason":${JSON.stringify(reason)},"ref":${JSON.stringify(ref)},"usage_id":${JSON.stringify(usage.id)},"kind":${JSON.stringify(usage.kind)},"result":${usage.resultJson}}`,
      );
      const rows = await queryPrepared<{ ref: string; balance_after: number }>(
        this.dataSource(),
        'mailguard_charge_answers',
        CHARGE_BATCH,
        [accountId, `[${items.join(',')}]`, CHECK_PRICE],
      );
      const after = new Map(rows.map((row) => [row.ref, row.balance_after]));
      if (rows.length > 0) this.onBalance(accountId, Math.min(...after.values()));
      for (const item of batch) item.resolve(after.get(item.ref) ?? null);
    } catch (error) {
      // One bad item (a reused ref) fails its whole statement: the others go again on their own.
      if (batch.length === 1) batch[0].reject(error);
      else for (const item of batch) await this.serve(accountId, [item]);
    }
  }

  /**
   * Holds `amount` for a list (docs/api.md#credits): it leaves the balance for `held` when the balance allows
   * it; false (and nothing held) when it does not. Runs in the caller's transaction.
   */
  async hold(accountId: string, amount: number, reason: string, ref: string, runner: Runner): Promise<boolean> {
    const rows: Array<{ balance_after: number }> = await runner.query(
      `WITH moved AS (UPDATE accounts SET balance = balance - $2, held = held + $2 WHERE id = $1 AND balance >= $2 RETURNING balance)
       INSERT INTO credit_transactions (account_id, delta, kind, reason, ref, balance_after)
       SELECT $1, -$2, 'hold', $3, $4, balance FROM moved RETURNING balance_after`,
      [accountId, amount, reason, ref],
    );
    return this.moved(accountId, rows) !== null;
  }

  /**
   * Pays for list rows as they settle, out of the list's hold, in the transaction that settles them
   * (docs/api.md#holds-and-charges-for-lists): `amount` leaves `held`, written as a `release` row (back to the
   * balance) and a `charge` row (taken again) in one statement, so the balance does not move and
   * the day the rows settled has its charge. `ref` names the settlement (unique, as every charge's).
   */
  async chargeHeld(accountId: string, amount: number, reason: string, ref: string, runner: Runner): Promise<void> {
    const rows: Array<{ balance_after: number }> = await runner.query(
      // One INSERT of both rows in order (the release first), not two CTEs whose order is the planner's.
      `WITH moved AS (UPDATE accounts SET held = held - $2 WHERE id = $1 RETURNING balance)
       INSERT INTO credit_transactions (account_id, delta, kind, reason, ref, balance_after)
       SELECT $1, m.delta, m.kind, $3, $4, balance + m.after
       FROM moved, (VALUES (1, $2::int, 'release', $2::int), (2, -$2::int, 'charge', 0)) AS m(n, delta, kind, after)
       ORDER BY m.n RETURNING balance_after`,
      [accountId, amount, reason, ref],
    );
    this.moved(accountId, rows.slice(-1));
  }

  /**
   * Ends a list's hold (the list completed or was cancelled): what it still holds — rows never
   * charged — leaves `held` for the balance as one `release` row (ref: the list). Runs in the
   * transaction that ends the list.
   */
  async releaseHold(accountId: string, held: number, reason: string, ref: string, runner: Runner): Promise<void> {
    const rows: Array<{ balance_after: number }> = await runner.query(
      `WITH moved AS (UPDATE accounts SET held = held - $2, balance = balance + $2 WHERE id = $1 RETURNING balance)
       INSERT INTO credit_transactions (account_id, delta, kind, reason, ref, balance_after)
       SELECT $1, $2, 'release', $3, $4, balance FROM moved RETURNING balance_after`,
      [accountId, held, reason, ref],
    );
    this.moved(accountId, rows);
  }

  /**
   * Gives back (part of) a charge in the caller's transaction (the charge sweep's); the ref makes a
   * second refund of the same charge a no-op. Whether it gave anything back.
   */
  async refund(accountId: string, amount: number, reason: string, ref: string, runner: Runner): Promise<boolean> {
    const rows: Array<{ balance_after: number }> = await runner.query(
      `WITH moved AS (
         UPDATE accounts SET balance = balance + $2 WHERE id = $1
           AND NOT EXISTS (SELECT 1 FROM credit_transactions WHERE account_id = $1 AND kind = 'refund' AND ref = $4)
         RETURNING balance)
       INSERT INTO credit_transactions (account_id, delta, kind, reason, ref, balance_after)
       SELECT $1, $2, 'refund', $3, $4, balance FROM moved RETURNING balance_after`,
      [accountId, amount, reason, ref],
    );
    return this.moved(accountId, rows) !== null;
  }

  /**
   * An operator's movement (docs/operations.md#operator-console): `amount` credits in (a `grant`
   * row) or out (an `adjust` row), conditional so the balance never goes below zero. The ledger row
   * as the transactions page shows it, or null (nothing moved) when the balance is short or the
   * account is not there. Runs in the caller's transaction, which also writes the audit entry.
   */
  async operatorMove(
    accountId: string,
    amount: number,
    reason: string,
    runner: Runner,
  ): Promise<TransactionPage['data'][number] | null> {
    const rows: Array<{ id: string; balance_after: number; created_at: Date; kind: TransactionKind }> =
      await runner.query(
        `WITH moved AS (UPDATE accounts SET balance = balance + $2 WHERE id = $1 AND balance + $2 >= 0 RETURNING balance)
         INSERT INTO credit_transactions (account_id, delta, kind, reason, ref, balance_after)
         SELECT $1, $2, CASE WHEN $2 > 0 THEN 'grant' ELSE 'adjust' END, $3, NULL, balance FROM moved
         RETURNING id, balance_after, created_at, kind`,
        [accountId, amount, reason],
      );
    if (this.moved(accountId, rows) === null) return null;
    const [row] = rows;
    return {
      id: `txn_${row.id}`,
      delta: amount,
      kind: row.kind,
      reason,
      ref: null,
      createdAt: new Date(row.created_at).toISOString(),
      balanceAfter: row.balance_after,
    };
  }

  async balance(accountId: string): Promise<Balance> {
    const account = await this.dataSource()
      .getRepository(AccountEntity)
      .findOne({ select: { balance: true, held: true }, where: { id: accountId } });
    if (!account) return { balance: 0, held: 0 };
    this.onBalance(accountId, account.balance);
    return { balance: account.balance, held: account.held };
  }

  /**
   * The account's ledger rows after the row `afterId` (null: from the first), oldest first, up to
   * `limit`: the keyset pages of the whole ledger's export. Each row's `id` is the raw one, the cursor.
   */
  async transactionsAfter(
    accountId: string,
    afterId: string | null,
    limit: number,
  ): Promise<Array<TransactionPage['data'][number] & { cursor: string }>> {
    const query = this.dataSource()
      .getRepository(CreditTransactionEntity)
      .createQueryBuilder('t')
      .where('t.accountId = :accountId', { accountId })
      .orderBy('t.id', 'ASC')
      .limit(limit);
    if (afterId !== null) query.andWhere('t.id > :afterId', { afterId });
    const rows = await query.getMany();
    return rows.map((row) => ({ ...transaction(row), cursor: row.id }));
  }

  async transactions(accountId: string, page: number, limit: number): Promise<TransactionPage> {
    const repository = this.dataSource().getRepository(CreditTransactionEntity);
    const [rows, total] = await repository.findAndCount({
      where: { accountId },
      order: { id: 'DESC' },
      skip: (page - 1) * limit,
      take: limit,
    });
    return {
      data: rows.map(transaction),
      page,
      limit,
      total,
    };
  }
}
