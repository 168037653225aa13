import type { DataSource, EntityManager } from 'typeorm';
import type { VerificationResult } from '@mailguard/engine';

export type ListStatus = 'uploading' | 'queued' | 'processing' | 'completed' | 'failed' | 'cancelled';

/** The list object of API.md §4.1. */
export interface ListView {
  id: string;
  name: string;
  status: Exclude<ListStatus, 'uploading'>;
  total: number;
  processed: number;
  duplicates: number;
  percent: number;
  etaSeconds: number | null;
  counts: { valid: number; risky: number; invalid: number };
  creditsHeld: number;
  creditsCharged: number;
  createdAt: string;
  startedAt: string | null;
  completedAt: string | null;
  error: string | null;
}

interface ListRow {
  id: string;
  account_id: string;
  name: string;
  status: ListStatus;
  columns: string[];
  delimiter: string;
  email_column: number;
  webhook_url: string | null;
  total: number;
  processed: number;
  duplicates: number;
  valid: number;
  risky: number;
  invalid: number;
  credits_held: number;
  credits_charged: number;
  error: string | null;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
}

export interface StoredList {
  row: ListRow;
  view: ListView;
}

/** A data row as uploaded: the customer's fields and what the upload learnt of its address. */
export interface UploadRow {
  row: number;
  fields: string[];
  email: string;
  /** The normalised address; null when the syntax fails (then `result` is already known). */
  key: string | null;
  domain: string | null;
  result: VerificationResult | null;
}

export interface PendingRow {
  row: number;
  email: string;
  domain: string;
}

export interface ResultRow {
  row: number;
  fields: string[];
  email: string;
  result: VerificationResult | null;
}

/** How long a dispatched row may go unsettled before a sweep dispatches it again (its job was lost). */
export const STALE_DISPATCH_SECONDS = 15 * 60;

function view(row: ListRow, now = Date.now()): ListView {
  const percent = row.total === 0 ? 100 : Math.floor((row.processed / row.total) * 100);
  let etaSeconds: number | null = null;
  if (row.status === 'processing' && row.started_at && row.processed > 0 && row.processed < row.total) {
    const elapsed = (now - row.started_at.getTime()) / 1000;
    etaSeconds = Math.max(1, Math.round(((row.total - row.processed) * elapsed) / row.processed));
  }
  return {
    id: row.id,
    name: row.name,
    status: row.status as ListView['status'],
    total: row.total,
    processed: row.processed,
    duplicates: row.duplicates,
    percent,
    etaSeconds,
    counts: { valid: row.valid, risky: row.risky, invalid: row.invalid },
    creditsHeld: row.credits_held,
    creditsCharged: row.credits_charged,
    createdAt: row.created_at.toISOString(),
    startedAt: row.started_at?.toISOString() ?? null,
    completedAt: row.completed_at?.toISOString() ?? null,
    error: row.error,
  };
}

const COUNTED = ['valid', 'risky', 'invalid'] as const;

type Runner = Pick<EntityManager, 'query'>;

/** TypeORM answers UPDATE and DELETE with [rows, count] and everything else with rows. */
async function rowsOf<T>(runner: Runner, sql: string, params: unknown[]): Promise<T[]> {
  const raw: unknown = await runner.query(sql, params);
  if (Array.isArray(raw) && raw.length === 2 && Array.isArray(raw[0]) && typeof raw[1] === 'number') return raw[0] as T[];
  return raw as T[];
}

/**
 * Bulk lists in Postgres. The list row carries the counters customers poll; every settlement of
 * rows and every move of the list's credits happens in one transaction that locks the list row, so
 * a row is settled — and paid for — once, however often its job runs, and a cancel never races a
 * settlement.
 */
export class ListStore {
  constructor(private readonly dataSource: () => DataSource) {}

  async create(list: { id: string; accountId: string; name: string; columns: string[]; delimiter: string; emailColumn: number; webhookUrl: string | null }): Promise<void> {
    await this.dataSource().query(
      "INSERT INTO lists (id, account_id, name, status, columns, delimiter, email_column, webhook_url) VALUES ($1, $2, $3, 'uploading', $4::jsonb, $5, $6, $7)",
      [list.id, list.accountId, list.name, JSON.stringify(list.columns), list.delimiter, list.emailColumn, list.webhookUrl],
    );
  }

  /** One batch of uploaded rows, in one statement. Rows whose syntax failed arrive settled. */
  async insertRows(listId: string, rows: UploadRow[]): Promise<void> {
    await this.dataSource().query(
      `INSERT INTO list_rows (list_id, row, fields, email, key, domain, settled, status, result)
       SELECT $1, r.row, r.fields, r.email, r.key, r.domain, r.result IS NOT NULL, r.result->>'status', r.result
       FROM jsonb_to_recordset($2::jsonb) AS r(row int, fields jsonb, email text, key text, domain text, result jsonb)`,
      [listId, JSON.stringify(rows)],
    );
  }

  async discard(listId: string): Promise<void> {
    await this.dataSource().query('DELETE FROM lists WHERE id = $1', [listId]);
  }

  /**
   * Ends the upload: marks repeats of an address (after normalisation) as duplicates of its first
   * row, counts, and — in the same transaction as the list turns `queued` — holds one credit per
   * chargeable row. Null (and nothing held) when the balance is short: the caller answers 402.
   */
  async seal(listId: string, accountId: string, hold: (manager: EntityManager, amount: number) => Promise<boolean>): Promise<{ chargeable: number; sealed: boolean }> {
    return this.dataSource().transaction(async (manager) => {
      await manager.query(
        `UPDATE list_rows r SET duplicate_of = f.first
         FROM (SELECT key, min(row) AS first FROM list_rows WHERE list_id = $1 AND key IS NOT NULL GROUP BY key HAVING count(*) > 1) f
         WHERE r.list_id = $1 AND r.key = f.key AND r.row <> f.first`,
        [listId],
      );
      const [counts] = (await rowsOf(manager, 
        `SELECT count(*)::int AS total,
                count(*) FILTER (WHERE duplicate_of IS NOT NULL)::int AS duplicates,
                count(*) FILTER (WHERE key IS NOT NULL AND duplicate_of IS NULL)::int AS chargeable,
                count(*) FILTER (WHERE key IS NULL)::int AS failed
         FROM list_rows WHERE list_id = $1`,
        [listId],
      )) as Array<{ total: number; duplicates: number; chargeable: number; failed: number }>;
      if (counts.chargeable > 0 && !(await hold(manager, counts.chargeable))) return { chargeable: counts.chargeable, sealed: false };
      await manager.query(
        `UPDATE lists SET status = 'queued', total = $2, duplicates = $3, processed = $4, invalid = $4, credits_held = $5 WHERE id = $1`,
        [listId, counts.total, counts.duplicates, counts.failed, counts.chargeable],
      );
      return { chargeable: counts.chargeable, sealed: true };
    });
  }

  async find(listId: string, accountId?: string): Promise<StoredList | null> {
    const rows = (await rowsOf(this.dataSource(), 
      `SELECT * FROM lists WHERE id = $1 AND status <> 'uploading' ${accountId ? 'AND account_id = $2' : ''}`,
      accountId ? [listId, accountId] : [listId],
    )) as ListRow[];
    return rows[0] ? { row: rows[0], view: view(rows[0]) } : null;
  }

  async page(accountId: string, page: number, limit: number): Promise<{ data: ListView[]; total: number }> {
    const rows = (await rowsOf(this.dataSource(), 
      "SELECT *, count(*) OVER ()::int AS full_count FROM lists WHERE account_id = $1 AND status <> 'uploading' ORDER BY created_at DESC, id LIMIT $2 OFFSET $3",
      [accountId, limit, (page - 1) * limit],
    )) as Array<ListRow & { full_count: number }>;
    const total = rows[0]?.full_count ?? (await this.count(accountId));
    return { data: rows.map((row) => view(row)), total };
  }

  private async count(accountId: string): Promise<number> {
    const [row] = (await rowsOf(this.dataSource(), "SELECT count(*)::int AS n FROM lists WHERE account_id = $1 AND status <> 'uploading'", [accountId])) as Array<{ n: number }>;
    return row.n;
  }

  /** queued → processing; null when the list is gone or already over (nothing to feed). */
  async start(listId: string): Promise<StoredList | null> {
    const rows = (await rowsOf(this.dataSource(), 
      `UPDATE lists SET status = 'processing', started_at = coalesce(started_at, now())
       WHERE id = $1 AND status IN ('queued', 'processing') RETURNING *`,
      [listId],
    )) as ListRow[];
    return rows[0] ? { row: rows[0], view: view(rows[0]) } : null;
  }

  /**
   * First rows of each address not yet settled nor (recently) dispatched, by domain, after `from`
   * (keyset paging: a feed never reads again the rows it has just dispatched).
   */
  async undispatched(listId: string, limit: number, from: { domain: string; row: number } | null): Promise<PendingRow[]> {
    return (await rowsOf(
      this.dataSource(),
      `SELECT row, email, domain FROM list_rows
       WHERE list_id = $1 AND NOT settled AND duplicate_of IS NULL AND key IS NOT NULL
         AND (dispatched_at IS NULL OR dispatched_at < now() - make_interval(secs => $3))
         AND ($4::text IS NULL OR (domain, row) > ($4::text, $5::int))
       ORDER BY domain, row LIMIT $2`,
      [listId, limit, STALE_DISPATCH_SECONDS, from?.domain ?? null, from?.row ?? 0],
    )) as PendingRow[];
  }

  async markDispatched(listId: string, rows: number[]): Promise<void> {
    await this.dataSource().query('UPDATE list_rows SET dispatched_at = now() WHERE list_id = $1 AND row = ANY($2::int[])', [listId, rows]);
  }

  /**
   * Settles rows with their results (and their duplicates with them), moves the counters, and
   * when the last row settles completes the list: what was held and not used (unknown results)
   * goes back to the balance as a refund row. Rows already settled are skipped, so a job that
   * runs twice changes nothing the second time. Returns the list when this call completed it.
   */
  async settle(listId: string, settled: Array<{ row: number; result: VerificationResult }>): Promise<StoredList | null> {
    return this.dataSource().transaction(async (manager) => {
      const [list] = (await rowsOf(manager, 'SELECT * FROM lists WHERE id = $1 FOR UPDATE', [listId])) as ListRow[];
      if (!list || (list.status !== 'processing' && list.status !== 'queued')) return null;
      const fresh = (await rowsOf(manager, 
        `UPDATE list_rows r SET settled = true, status = x.result->>'status', result = x.result
         FROM jsonb_to_recordset($2::jsonb) AS x(row int, result jsonb)
         WHERE r.list_id = $1 AND r.row = x.row AND NOT r.settled
         RETURNING r.row, r.status, x.result->>'reachable' AS reachable`,
        [listId, JSON.stringify(settled)],
      )) as Array<{ row: number; status: string; reachable: string }>;
      if (fresh.length === 0) return null;
      // A duplicate carries the result of its first occurrence and counts like it (API.md §4.1).
      const copies = (await rowsOf(manager, 
        `UPDATE list_rows d SET settled = true, status = f.status
         FROM list_rows f WHERE d.list_id = $1 AND f.list_id = $1 AND d.duplicate_of = f.row AND f.row = ANY($2::int[])
         RETURNING d.row, f.status`,
        [listId, fresh.map((row) => row.row)],
      )) as Array<{ row: number; status: string }>;
      const all = [...fresh, ...copies];
      const counted = (status: string) => all.filter((row) => row.status === status).length;
      const charged = fresh.filter((row) => row.reachable !== 'unknown').length;
      const [row] = (await rowsOf(manager, 
        `UPDATE lists SET processed = processed + $2, valid = valid + $3, risky = risky + $4, invalid = invalid + $5, credits_charged = credits_charged + $6
         WHERE id = $1 RETURNING *`,
        [listId, all.length, ...COUNTED.map(counted), charged],
      )) as ListRow[];
      if (row.processed < row.total) return null;
      return this.finish(manager, row, 'completed');
    });
  }

  /**
   * Ends a list (completed or cancelled): releases what it holds, refunding everything
   * not charged as one ledger row (ref: the list id, so never twice).
   */
  private async finish(manager: EntityManager, list: ListRow, status: 'completed' | 'cancelled'): Promise<StoredList> {
    const refund = list.credits_held - list.credits_charged;
    if (list.credits_held > 0) {
      await manager.query(
        `WITH moved AS (UPDATE accounts SET held = held - $2, balance = balance + $3 WHERE id = $1 RETURNING balance)
         INSERT INTO credit_transactions (account_id, delta, kind, reason, ref, balance_after)
         SELECT $1, $3, 'refund', $4, $5, balance FROM moved WHERE $3 > 0`,
        [list.account_id, list.credits_held, refund, `refund: list ${list.name} (${status}), ${refund} rows not charged`, list.id],
      );
    }
    const [row] = (await rowsOf(manager, 
      'UPDATE lists SET status = $2, credits_held = 0, completed_at = now() WHERE id = $1 RETURNING *',
      [list.id, status],
    )) as ListRow[];
    return { row, view: view(row) };
  }

  /** A list whose rows are all settled at upload (nothing chargeable) completes at once. */
  async completeIfDone(listId: string): Promise<StoredList | null> {
    return this.dataSource().transaction(async (manager) => {
      const [list] = (await rowsOf(manager, 'SELECT * FROM lists WHERE id = $1 FOR UPDATE', [listId])) as ListRow[];
      if (!list || list.status !== 'queued' || list.processed < list.total) return null;
      return this.finish(manager, list, 'completed');
    });
  }

  /** DELETE of a running list: it stops, and what it holds beyond its charges comes back. */
  async cancel(listId: string, accountId: string): Promise<StoredList | null> {
    return this.dataSource().transaction(async (manager) => {
      const [list] = (await rowsOf(manager, "SELECT * FROM lists WHERE id = $1 AND account_id = $2 AND status IN ('queued', 'processing') FOR UPDATE", [listId, accountId])) as ListRow[];
      return list ? this.finish(manager, list, 'cancelled') : null;
    });
  }

  /** DELETE of a finished list: it and its rows are gone. */
  async remove(listId: string, accountId: string): Promise<boolean> {
    const rows = (await rowsOf(this.dataSource(), 
      "DELETE FROM lists WHERE id = $1 AND account_id = $2 AND status IN ('completed', 'failed', 'cancelled') RETURNING id",
      [listId, accountId],
    )) as unknown[];
    return rows.length > 0;
  }

  /** Rows in order from `afterRow`, with the result of their first occurrence for duplicates. */
  async results(listId: string, options: { status: string | null; afterRow?: number; offset?: number; limit: number }): Promise<ResultRow[]> {
    return (await rowsOf(this.dataSource(), 
      `SELECT r.row, r.fields, r.email, coalesce(r.result, f.result) AS result
       FROM list_rows r LEFT JOIN list_rows f ON f.list_id = r.list_id AND f.row = r.duplicate_of
       WHERE r.list_id = $1 AND r.row > $2 AND ($3::text IS NULL OR r.status = $3)
       ORDER BY r.row LIMIT $4 OFFSET $5`,
      [listId, options.afterRow ?? 0, options.status, options.limit, options.offset ?? 0],
    )) as ResultRow[];
  }

  async countResults(listId: string, status: string | null): Promise<number> {
    const [row] = (await rowsOf(this.dataSource(), 'SELECT count(*)::int AS n FROM list_rows WHERE list_id = $1 AND ($2::text IS NULL OR status = $2)', [listId, status])) as Array<{ n: number }>;
    return row.n;
  }

  async webhookSecret(listId: string): Promise<string | null> {
    const [row] = (await rowsOf(this.dataSource(), 'SELECT a.webhook_secret FROM lists l JOIN accounts a ON a.id = l.account_id WHERE l.id = $1', [listId])) as Array<{ webhook_secret: string }>;
    return row?.webhook_secret ?? null;
  }

  /**
   * Lists to take up again at start; uploads that never finished are dropped. With `jobsLost` (one
   * process, whose jobs lived in its memory) every unsettled row is to be dispatched again now.
   */
  async running(jobsLost = false): Promise<string[]> {
    await this.dataSource().query("DELETE FROM lists WHERE status = 'uploading' AND created_at < now() - interval '1 hour'");
    const rows = (await rowsOf(this.dataSource(), "SELECT id FROM lists WHERE status IN ('queued', 'processing')", [])) as Array<{ id: string }>;
    const ids = rows.map((row) => row.id);
    if (jobsLost && ids.length > 0) await this.dataSource().query('UPDATE list_rows SET dispatched_at = NULL WHERE list_id = ANY($1::text[]) AND NOT settled', [ids]);
    return ids;
  }
}
