import type { DataSource, EntityManager } from 'typeorm';
import { CreditTransactionEntity, type TransactionKind, type UsageKind } from '@mailguard/db';

export interface Balance {
  balance: number;
  held: number;
}

export interface TransactionPage {
  data: Array<{ id: string; delta: number; reason: string; ref: string | null; createdAt: string; balanceAfter: number; kind: TransactionKind }>;
  page: number;
  limit: number;
  total: number;
}

type Runner = Pick<EntityManager, 'query'>;

/** The `verifications` row of a check (its usage record). */
export interface UsageRecord {
  id: string;
  email: string;
  kind: UsageKind;
  status: string;
  reason: string;
  result: unknown;
}

/**
 * The credit ledger: every movement is one SQL statement that changes the balance and appends the
 * ledger row together (a CTE), so a row exists exactly when the balance moved. Charges are
 * conditional (`balance >= amount`), so concurrent requests can never overdraw; a charge or refund
 * carries a `ref` that a unique index allows once, so a retried check is never charged twice.
 */
export class CreditLedger {
  constructor(private readonly dataSource: () => DataSource) {}

  /** Adds credits (sign-up grants). Runs in the caller's transaction when one is given. */
  async grant(accountId: string, amount: number, reason: string, runner: Runner = this.dataSource()): Promise<number> {
    const rows: Array<{ balance_after: number }> = await runner.query(
      `WITH moved AS (UPDATE accounts SET balance = balance + $2 WHERE id = $1 RETURNING balance)
       INSERT INTO credit_transactions (account_id, delta, kind, reason, ref, balance_after)
       SELECT $1, $2, 'grant', $3, NULL, balance FROM moved RETURNING balance_after`,
      [accountId, amount, reason],
    );
    return rows[0].balance_after;
  }

  /** Takes `amount` when the balance allows it; null (and nothing taken) when it does not. */
  async charge(accountId: string, amount: number, reason: string, ref: string): Promise<number | null> {
    const rows: Array<{ balance_after: number }> = await this.dataSource().query(
      `WITH moved AS (UPDATE accounts SET balance = balance - $2 WHERE id = $1 AND balance >= $2 RETURNING balance)
       INSERT INTO credit_transactions (account_id, delta, kind, reason, ref, balance_after)
       SELECT $1, -$2, 'charge', $3, $4, balance FROM moved RETURNING balance_after`,
      [accountId, amount, reason, ref],
    );
    return rows.length > 0 ? rows[0].balance_after : null;
  }

  /**
   * Takes one credit for an answer already in hand (a cached result) and stores the check for the
   * account's usage, in the same statement: one commit on the hot path of cached checks.
   */
  async chargeOne(accountId: string, reason: string, ref: string, usage: UsageRecord): Promise<number | null> {
    const rows: Array<{ balance_after: number }> = await this.dataSource().query(
      `WITH moved AS (UPDATE accounts SET balance = balance - 1 WHERE id = $1 AND balance >= 1 RETURNING balance),
       used AS (
         INSERT INTO verifications (id, account_id, email, kind, status, reason, credits, result)
         SELECT $4, $1, $5, $6, $7, $8, 1, $9::jsonb FROM moved)
       INSERT INTO credit_transactions (account_id, delta, kind, reason, ref, balance_after)
       SELECT $1, -1, 'charge', $2, $3, balance FROM moved RETURNING balance_after`,
      [accountId, reason, ref, usage.id, usage.email, usage.kind, usage.status, usage.reason, JSON.stringify(usage.result)],
    );
    return rows.length > 0 ? rows[0].balance_after : null;
  }

  /** Gives back (part of) a charge; the ref makes a second refund of the same charge a no-op. */
  async refund(accountId: string, amount: number, reason: string, ref: string): Promise<number> {
    const rows: Array<{ balance_after: number }> = await this.dataSource().query(
      `WITH moved AS (
         UPDATE accounts SET balance = balance + $2 WHERE id = $1
           AND NOT EXISTS (SELECT 1 FROM credit_transactions WHERE account_id = $1 AND kind = 'refund' AND ref = $4)
         RETURNING balance)
       INSERT INTO credit_transactions (account_id, delta, kind, reason, ref, balance_after)
       SELECT $1, $2, 'refund', $3, $4, balance FROM moved RETURNING balance_after`,
      [accountId, amount, reason, ref],
    );
    return rows.length > 0 ? rows[0].balance_after : (await this.balance(accountId)).balance;
  }

  async balance(accountId: string): Promise<Balance> {
    const rows: Array<{ balance: number; held: number }> = await this.dataSource().query('SELECT balance, held FROM accounts WHERE id = $1', [accountId]);
    return rows[0] ?? { balance: 0, held: 0 };
  }

  async transactions(accountId: string, page: number, limit: number): Promise<TransactionPage> {
    const repository = this.dataSource().getRepository(CreditTransactionEntity);
    const [rows, total] = await repository.findAndCount({ where: { accountId }, order: { id: 'DESC' }, skip: (page - 1) * limit, take: limit });
    return {
      data: rows.map((row) => ({
        id: `txn_${row.id}`,
        delta: row.delta,
        kind: row.kind,
        reason: row.reason,
        ref: row.ref,
        createdAt: row.createdAt.toISOString(),
        balanceAfter: row.balanceAfter,
      })),
      page,
      limit,
      total,
    };
  }
}
