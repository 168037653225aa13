import { In, IsNull, Not, type DataSource, type EntityManager } from 'typeorm';
import { CreditLedger, listCharge, listHold } from '@mailguard/credits';
import { ListEntity, ListFeedMarkEntity, ListRowEntity, type ListStatus } from '@mailguard/db';
import type { VerificationResult } from '@mailguard/engine';
import type { Status } from '@mailguard/verdict';
import { addDelivery, webhookState, type WebhookState } from './webhook-outbox';

export type { ListStatus };

/** The list object of docs/api.md#the-list-object. */
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
  /** When retention erased the list's rows (its results then answer 410); null while they are kept. */
  expiredAt: string | null;
  error: string | null;
  /** The delivery of its webhook, once it has ended (null without a webhookUrl, or before the end). */
  webhook: WebhookState | null;
  /**
   * Rows of a running list waiting for a greylisting retry (the server said "try later"), and when the next is
   * due; null when none waits. While rows wait, `etaSeconds` says little: the wait is the server's.
   */
  greylisted: { rows: number; nextRetryAt: string } | null;
}

export interface StoredList {
  row: ListEntity;
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

/** A list stored with this many rows or more has list_rows analysed as it is sealed (ListStore.seal). */
const ANALYZE_AFTER_ROWS = 10_000;

type Waits = ListView['greylisted'];

function view(row: ListEntity, now = Date.now(), greylisted: Waits = null): ListView {
  const percent = row.total === 0 ? 100 : Math.floor((row.processed / row.total) * 100);
  let etaSeconds: number | null = null;
  if (row.status === 'processing' && row.startedAt && row.processed > 0 && row.processed < row.total) {
    const elapsed = (now - row.startedAt.getTime()) / 1000;
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
    creditsHeld: row.creditsHeld,
    creditsCharged: row.creditsCharged,
    createdAt: row.createdAt.toISOString(),
    startedAt: row.startedAt?.toISOString() ?? null,
    completedAt: row.completedAt?.toISOString() ?? null,
    expiredAt: row.expiredAt?.toISOString() ?? null,
    error: row.error,
    webhook: webhookState(row.webhook),
    greylisted,
  };
}

/**
 * What a feed reads: the rows never dispatched (`new`), or those and the rows whose jobs must have
 * been lost (`stale`), see ListStore.feedScope.
 */
export type FeedScope = 'new' | 'stale';

/**
 * A row the feed is to dispatch: the first of its address, not settled (list_rows_pending indexes
 * these), and past its domain's mark (`c`, list_feed_marks joined on the row's list and domain) — or,
 * `stale`, whatever the marks (the list has gone quiet: every job it had is lost), unless it was sent
 * back by greylisting since.
 */
function unsent(scope: FeedScope): string {
  const sent =
    scope === 'new'
      ? 'l.row > coalesce(c.through, 0)'
      : `(l.retry_at IS NULL OR l.retry_at < now() - make_interval(secs => ${STALE_DISPATCH_SECONDS}))`;
  return `NOT l.settled AND l.duplicate_of IS NULL AND l.key IS NOT NULL AND ${sent}`;
}

/** The marks `unsent` reads, joined to the rows `l`. */
const MARKS = 'LEFT JOIN list_feed_marks c ON c.list_id = l.list_id AND c.domain = l.domain';

const stored = (row: ListEntity, greylisted: Waits = null): StoredList => ({
  row,
  view: view(row, Date.now(), greylisted),
});

const RUNNING: ListStatus[] = ['queued', 'processing'];
/** Not ended: running, or paused with its account suspended (its rows in flight still settle, nothing more is fed). */
const OPEN: ListStatus[] = [...RUNNING, 'paused'];
const FINISHED: ListStatus[] = ['completed', 'failed', 'cancelled'];

export interface SettledRow {
  row: number;
  result: VerificationResult;
}

/** The rows a settlement settled (not already settled before), and the list when it completed it. */
export interface Settlement {
  rows: number[];
  finished: StoredList | null;
}

interface SettleWaiter {
  settled: SettledRow[];
  resolve(settlement: Settlement): void;
  reject(error: unknown): void;
}

interface SettlingList {
  waiting: SettleWaiter[];
  lanes: number;
}

/** Rows settled in one transaction at most, however many groups wait (one group is taken whatever its size). */
const SETTLE_BATCH_ROWS = 2_500;
/**
 * Transactions of one list's settlements at once in a process: their rows' updates side by side on
 * as many connections, their waits for the list row's lock (the counters, to the commit) short.
 */
export const SETTLE_LANES = 4;

/**
 * Bulk lists in Postgres. The list row carries the counters customers poll; every settlement of
 * rows and every move of the list's credits happens in one transaction that locks the list row, so
 * a row is settled — and paid for — once, however often its job runs, and a cancel never races a
 * settlement. The credits move through the ledger (priced by the pricing policy), in that
 * transaction.
 */
export class ListStore {
  /** Per list, its settlements waiting for a lane and its lanes running (see settle); a list is here while one runs. */
  private readonly settling = new Map<string, SettlingList>();

  constructor(
    private readonly dataSource: () => DataSource,
    private readonly ledger: CreditLedger = new CreditLedger(dataSource),
  ) {}

  private get lists() {
    return this.dataSource().getRepository(ListEntity);
  }

  private get rows() {
    return this.dataSource().getRepository(ListRowEntity);
  }

  private get marks() {
    return this.dataSource().getRepository(ListFeedMarkEntity);
  }

  async create(list: {
    id: string;
    accountId: string;
    name: string;
    columns: string[];
    delimiter: string;
    emailColumn: number;
    webhookUrl: string | null;
  }): Promise<void> {
    await this.lists.insert({ ...list, status: 'uploading' });
  }

  /**
   * One batch of uploaded rows, in one statement. Rows whose syntax failed arrive settled. Raw SQL:
   * the batch (up to 5,000 rows, 1 MB) travels as one JSON parameter, serialised natively in one
   * go, where an INSERT of entities would bind and escape every field of every row. Stored by domain:
   * the feed sends and settles a domain's rows in groups, and a group then rewrites a few pages of the
   * table rather than one page a row (a big list's table outgrows Postgres' cache, issue 33).
   */
  async insertRows(listId: string, rows: UploadRow[]): Promise<void> {
    await this.dataSource().query(
      `INSERT INTO list_rows (list_id, row, fields, email, key, domain, settled, status, result)
       SELECT $1, r.row, r.fields, r.email, r.key, r.domain, r.result IS NOT NULL, r.result->>'status', r.result
       FROM jsonb_to_recordset($2::jsonb) AS r(row int, fields jsonb, email text, key text, domain text, result jsonb)
       ORDER BY r.domain, r.row`,
      [listId, JSON.stringify(rows)],
    );
  }

  async discard(listId: string): Promise<void> {
    await this.lists.delete({ id: listId });
  }

  /**
   * Ends the upload: marks repeats of an address (after normalisation) as duplicates of its first
   * row, counts, and — in the same transaction as the list turns `queued` — holds the price of its
   * chargeable rows. Not sealed (and nothing held) when the balance is short: the caller answers 402.
   * `stored`: how many rows the upload stored (a big list has the table analysed first).
   */
  async seal(listId: string, accountId: string, stored = 0): Promise<{ chargeable: number; sealed: boolean }> {
    // Statistics first: autovacuum analyses a bulk load late, or never where it is off, and a planner that has
    // none for a big list's rows reads all of them at each settlement (2-3 s at 1,000,000 rows, issue 33).
    if (stored >= ANALYZE_AFTER_ROWS) await this.dataSource().query('ANALYZE list_rows');
    return this.dataSource().transaction(async (manager) => {
      // One set-based statement: every repeat points at its address's first row.
      await manager.query(
        `UPDATE list_rows r SET duplicate_of = f.first
         FROM (SELECT key, min(row) AS first FROM list_rows WHERE list_id = $1 AND key IS NOT NULL GROUP BY key HAVING count(*) > 1) f
         WHERE r.list_id = $1 AND r.key = f.key AND r.row <> f.first`,
        [listId],
      );
      const counts = (await manager
        .getRepository(ListRowEntity)
        .createQueryBuilder('r')
        .select('count(*)::int', 'total')
        .addSelect('count(*) FILTER (WHERE r.duplicate_of IS NOT NULL)::int', 'duplicates')
        .addSelect('count(*) FILTER (WHERE r.key IS NOT NULL AND r.duplicate_of IS NULL)::int', 'chargeable')
        .addSelect('count(*) FILTER (WHERE r.key IS NULL)::int', 'failed')
        .where('r.listId = :listId', { listId })
        .getRawOne()) as { total: number; duplicates: number; chargeable: number; failed: number };
      const list = await manager.findOneByOrFail(ListEntity, { id: listId });
      const held = listHold(counts.chargeable);
      if (
        held > 0 &&
        !(await this.ledger.hold(
          accountId,
          held,
          `hold: list ${list.name} (${counts.chargeable} rows)`,
          listId,
          manager,
        ))
      ) {
        return { chargeable: counts.chargeable, sealed: false };
      }
      // Rows whose syntax failed settled at upload: they count in usage on this day, free.
      if (counts.failed > 0) await this.countUsage(manager, listId, accountId, counts.failed);
      await manager.update(
        ListEntity,
        { id: listId },
        {
          status: 'queued',
          total: counts.total,
          duplicates: counts.duplicates,
          processed: counts.failed,
          invalid: counts.failed,
          creditsHeld: held,
        },
      );
      return { chargeable: counts.chargeable, sealed: true };
    });
  }

  async find(listId: string, accountId?: string): Promise<StoredList | null> {
    const row = await this.lists.findOne({
      where: { id: listId, status: Not('uploading'), ...(accountId ? { accountId } : {}) },
      relations: { webhook: true },
    });
    return row ? stored(row, await this.waits(row)) : null;
  }

  /**
   * The rows of a running list that wait for a greylisting retry still to come (null: none). Every
   * poll of the list asks: list_rows_waiting holds only those rows, so the answer costs the same
   * whatever the list's size.
   */
  private async waits(row: ListEntity): Promise<Waits> {
    if (!RUNNING.includes(row.status)) return null;
    const [found] = (await this.dataSource().query(
      `SELECT count(*)::int AS waiting, min(l.retry_at) AS next FROM list_rows l
        WHERE l.list_id = $1 AND NOT l.settled AND l.retry_at > now()`,
      [row.id],
    )) as Array<{ waiting: number; next: Date | string | null }>;
    if (!found || found.waiting === 0 || !found.next) return null;
    return { rows: found.waiting, nextRetryAt: new Date(found.next).toISOString() };
  }

  /** Rows the prober sent back to wait for a greylisting retry due at `at` (their duplicates wait with them). */
  async greylistWait(listId: string, rows: number[], at: Date): Promise<void> {
    if (rows.length === 0) return;
    await this.dataSource().query(
      `UPDATE list_rows l SET retry_at = $3
        WHERE l.list_id = $1 AND NOT l.settled AND (l.row = ANY($2::int[]) OR l.duplicate_of = ANY($2::int[]))`,
      [listId, rows, at],
    );
  }

  async page(accountId: string, page: number, limit: number): Promise<{ data: ListView[]; total: number }> {
    const [rows, total] = await this.lists.findAndCount({
      where: { accountId, status: Not('uploading') },
      relations: { webhook: true },
      order: { createdAt: 'DESC', id: 'ASC' },
      skip: (page - 1) * limit,
      take: limit,
    });
    const data = await Promise.all(rows.map(async (row) => view(row, Date.now(), await this.waits(row))));
    return { data, total };
  }

  /** queued → processing; null when the list is gone or already over (nothing to feed). */
  async start(listId: string): Promise<StoredList | null> {
    const started = await this.lists.update(
      { id: listId, status: In(RUNNING) },
      { status: 'processing', startedAt: () => 'coalesce(started_at, now())' },
    );
    if (!started.affected) return null;
    const row = await this.lists.findOneBy({ id: listId });
    return row ? stored(row) : null;
  }

  /**
   * What the feed of a started list has to read; null: nothing. A row dispatched and not settled is
   * queued, waits for a greylisting retry, or was lost with its job. The smtp queue is one line shared
   * by every list, so a list's rows may wait behind another list's backlog: only once nothing has moved
   * for STALE_DISPATCH_SECONDS — this list neither started, settled, dispatched nor fed, and no running list settled
   * a row — are its jobs taken for lost (`stale`). Otherwise a list whose feed never read all its rows
   * gets those never dispatched (`new`), and a fed one nothing: the sweep of a running list then reads
   * none of its rows, whatever its size. Judged in SQL, on the clock that stamped the times.
   */
  async feedScope(list: ListEntity): Promise<FeedScope | null> {
    const [{ quiet }] = (await this.dataSource().query(
      `SELECT greatest(l.started_at, l.settled_at, l.fed_at, (SELECT max(m.at) FROM list_feed_marks m WHERE m.list_id = l.id))
                < now() - make_interval(secs => $2)
         AND NOT EXISTS (SELECT 1 FROM lists o WHERE o.status IN ('queued', 'processing')
                          AND o.settled_at >= now() - make_interval(secs => $2)) AS quiet
       FROM lists l WHERE l.id = $1`,
      [list.id, STALE_DISPATCH_SECONDS],
    )) as Array<{ quiet: boolean | null }>;
    if (quiet) return 'stale';
    return list.fedAt ? null : 'new';
  }

  /**
   * Rows waiting to be dispatched (in `scope`) per domain, for the domains with at least `min` of them (a feed
   * reads each of those on its own, see FeedPlan); the other domains' rows summed under `null`.
   */
  async pendingByDomain(
    listId: string,
    scope: FeedScope,
    min: number,
  ): Promise<Array<{ domain: string | null; rows: number }>> {
    return this.dataSource().query(
      `SELECT CASE WHEN d.rows >= $2 THEN d.domain END AS domain, sum(d.rows)::int AS rows
       FROM (SELECT l.domain, count(*) AS rows FROM list_rows l ${MARKS}
             WHERE l.list_id = $1 AND ${unsent(scope)} GROUP BY l.domain) d
       GROUP BY 1`,
      [listId, min],
    );
  }

  /**
   * The rows a feed is to dispatch (in `scope`, see unsent), by domain, after `from`
   * (keyset paging: a feed never reads again the rows it has just dispatched), leaving out the
   * domains in `except` (which the feed reads on their own, see `undispatchedOf`).
   */
  async undispatched(
    listId: string,
    scope: FeedScope,
    limit: number,
    from: { domain: string; row: number } | null,
    except: string[] = [],
  ): Promise<PendingRow[]> {
    return this.dataSource().query(
      `SELECT l.row, l.email, l.domain FROM list_rows l ${MARKS}
       WHERE l.list_id = $1 AND ${unsent(scope)} AND NOT (l.domain = ANY($2::text[]))
         AND ($3::text IS NULL OR (l.domain, l.row) > ($3, $4::int))
       ORDER BY l.domain, l.row LIMIT $5`,
      [listId, except, from?.domain ?? null, from?.row ?? 0, limit],
    );
  }

  /** The same rows for each of some domains: up to `take` of them after the domain's row `after`, by domain and row. */
  async undispatchedOf(
    listId: string,
    scope: FeedScope,
    reads: Array<{ domain: string; after: number; take: number }>,
  ): Promise<PendingRow[]> {
    return this.dataSource().query(
      `SELECT p.domain, r.row, r.email
       FROM jsonb_to_recordset($2::jsonb) AS p(domain text, after int, take int)
       CROSS JOIN LATERAL (
         SELECT l.row, l.email FROM list_rows l ${MARKS}
         WHERE l.list_id = $1 AND l.domain = p.domain AND l.row > p.after AND ${unsent(scope)}
         ORDER BY l.row LIMIT p.take
       ) r
       ORDER BY p.domain, r.row`,
      [listId, JSON.stringify(reads)],
    );
  }

  /**
   * The feed's checkpoint: the rows of `domain` up to `through` are queued. One small row per list and
   * domain, where marking each row rewrote it (scattered over the table) once more than settling it does.
   */
  async markDispatched(listId: string, domain: string, through: number): Promise<void> {
    await this.dataSource().query(
      `INSERT INTO list_feed_marks (list_id, domain, through) VALUES ($1, $2, $3)
       ON CONFLICT (list_id, domain) DO UPDATE SET through = greatest(list_feed_marks.through, excluded.through), at = now()`,
      [listId, domain, through],
    );
  }

  /** The list's feed has read (and dispatched) every row it had to: sweeps leave it be while it settles (feedScope). */
  async fed(listId: string): Promise<void> {
    await this.lists.update({ id: listId }, { fedAt: () => 'now()' });
  }

  /** Counts `rows` settled now in the list's usage of the day (the transaction's UTC day, the ledger's too). */
  private async countUsage(manager: EntityManager, listId: string, accountId: string, rows: number): Promise<void> {
    await manager.query(
      `INSERT INTO list_usage (list_id, day, account_id, checks)
       VALUES ($1, (now() AT TIME ZONE 'UTC')::date, $2, $3)
       ON CONFLICT (list_id, day) DO UPDATE SET checks = list_usage.checks + excluded.checks`,
      [listId, accountId, rows],
    );
  }

  /**
   * Settles rows with their results (and their duplicates with them), moves the counters, counts
   * the rows in the day's usage and charges those that had an answer out of the list's hold (a
   * `release` and a `charge` row), and when the last row settles completes the list: what it
   * still holds (unknown results) goes back to the balance as a `release` row. Rows already
   * settled are skipped, so a job that runs twice changes nothing the second time. Returns the
   * rows of `settled` that this call settled, and the list when this call completed it.
   *
   * Group commit (issue 33): every settlement of a list locks its row from the counters' move to
   * the commit, so one at a time moves them. A process settles a list in SETTLE_LANES transactions
   * at most; the groups it concludes meanwhile wait here and then settle together, in one
   * transaction (up to SETTLE_BATCH_ROWS rows), instead of queueing one by one for the lock.
   */
  settle(listId: string, settled: SettledRow[]): Promise<Settlement> {
    return new Promise((resolve, reject) => {
      let list = this.settling.get(listId);
      if (!list) this.settling.set(listId, (list = { waiting: [], lanes: 0 }));
      list.waiting.push({ settled, resolve, reject });
      if (list.lanes < SETTLE_LANES) {
        list.lanes++;
        void this.settleWaiting(listId, list);
      }
    });
  }

  /** The lists with settlements running or waiting in this process: none once every settlement is answered. */
  get settlingLists(): number {
    return this.settling.size;
  }

  /** One lane of the list's settlements: a batch of the waiting groups at a time, until none waits. */
  private async settleWaiting(listId: string, list: SettlingList): Promise<void> {
    const { waiting } = list;
    while (waiting.length > 0) {
      let take = 1;
      let rows = waiting[0].settled.length;
      while (take < waiting.length && rows + waiting[take].settled.length <= SETTLE_BATCH_ROWS)
        rows += waiting[take++].settled.length;
      const batch = waiting.splice(0, take);
      try {
        const { rows: fresh, finished } = await this.settleTogether(
          listId,
          batch.flatMap((waiter) => waiter.settled),
        );
        // Each row to the first group that brought it (a job run twice at once brings it twice), the end to one.
        const unclaimed = new Set(fresh);
        batch.forEach((waiter, index) =>
          waiter.resolve({
            rows: waiter.settled.flatMap(({ row }) => (unclaimed.delete(row) ? [row] : [])),
            finished: index === 0 ? finished : null,
          }),
        );
      } catch (error) {
        // Alone, each group fails for itself: one that cannot settle does not fail the others' jobs.
        if (batch.length === 1) batch[0].reject(error);
        else
          for (const waiter of batch)
            await this.settleTogether(listId, waiter.settled).then(waiter.resolve, waiter.reject);
      }
    }
    if (--list.lanes === 0) this.settling.delete(listId);
  }

  /** One transaction of `settle`. */
  private async settleTogether(listId: string, settled: SettledRow[]): Promise<Settlement> {
    const nothing = { rows: [], finished: null };
    return this.dataSource().transaction(async (manager) => {
      // A key-share lock: groups of one list settle side by side (their rows are theirs), while a
      // cancel or a delete (FOR UPDATE) waits for them, and they for it: the list is locked first by both.
      const [list] = (await manager.query('SELECT status, account_id, name FROM lists WHERE id = $1 FOR KEY SHARE', [
        listId,
      ])) as Array<{ status: ListStatus; account_id: string; name: string }>;
      if (!list || !OPEN.includes(list.status)) return nothing;
      // Raw: one conditional statement settles only the rows not settled yet (a job run twice finds none).
      const [fresh] = (await manager.query(
        `UPDATE list_rows r SET settled = true, status = x.result->>'status', result = x.result
         FROM jsonb_to_recordset($2::jsonb) AS x(row int, result jsonb)
         WHERE r.list_id = $1 AND r.row = x.row AND NOT r.settled
         RETURNING r.row, r.status, x.result->>'reachable' AS reachable`,
        [listId, JSON.stringify(settled)],
      )) as [Array<{ row: number; status: string; reachable: VerificationResult['reachable'] }>, number];
      if (fresh.length === 0) return nothing;
      const rows = fresh.map((row) => row.row);
      // A duplicate carries the result of its first occurrence and counts like it (docs/api.md#the-list-object).
      // Found through list_rows_duplicates by the first rows' numbers: joined to the first rows in the
      // table instead, the planner read every row of the list at each settlement (issue 33, seen at
      // 1,000,000 rows).
      const [copies] = (await manager.query(
        `UPDATE list_rows d SET settled = true, status = f.status
         FROM unnest($2::int[], $3::text[]) AS f(row, status)
         WHERE d.list_id = $1 AND d.duplicate_of = ANY($2::int[]) AND d.duplicate_of = f.row
         RETURNING d.row, f.status`,
        [listId, rows, fresh.map((row) => row.status)],
      )) as [Array<{ row: number; status: string }>, number];
      const all = [...fresh, ...copies];
      const counted = (status: Status) => all.filter((row) => row.status === status).length;
      const charged = listCharge(fresh);
      // The counters move in place, the list's row locked only from here to the commit; what the
      // rows cost leaves the list's hold for its charges.
      const [[moved]] = (await manager.query(
        `UPDATE lists SET processed = processed + $2, valid = valid + $3, risky = risky + $4, invalid = invalid + $5,
           credits_charged = credits_charged + $6, credits_held = credits_held - $6, settled_at = now()
         WHERE id = $1 RETURNING processed, total`,
        [listId, all.length, counted('valid'), counted('risky'), counted('invalid'), charged],
      )) as [Array<{ processed: number; total: number }>, number];
      // Usage (docs/api.md#usage): the rows count on the UTC day they settled, and the ledger
      // charges them on that day (ref: the list and the first row this call settled, unique as a row settles once).
      await this.countUsage(manager, listId, list.account_id, all.length);
      if (charged > 0) {
        await this.ledger.chargeHeld(
          list.account_id,
          charged,
          `list ${list.name}: ${charged} rows`,
          `${listId}.${Math.min(...rows)}`,
          manager,
        );
      }
      // A paused list ends only once resumed (see resumeAccount): its account is suspended meanwhile.
      if (moved.processed < moved.total || list.status === 'paused') return { rows, finished: null };
      return {
        rows,
        finished: await this.finish(manager, await manager.findOneByOrFail(ListEntity, { id: listId }), 'completed'),
      };
    });
  }

  /**
   * Ends a list (completed or cancelled), in the transaction that holds its row: the ledger
   * releases what it still holds (rows never charged: unknown answers, and the rows a cancel
   * left unsettled) as one `release` row (ref: the list id), and a completed list with a
   * webhookUrl is owed its delivery (the outbox's row, whose body is the list object as it ended).
   */
  private async finish(
    manager: EntityManager,
    list: ListEntity,
    status: 'completed' | 'cancelled',
  ): Promise<StoredList> {
    if (list.creditsHeld > 0) {
      await this.ledger.releaseHold(
        list.accountId,
        list.creditsHeld,
        `release: list ${list.name} (${status}), ${list.creditsHeld} rows not charged`,
        list.id,
        manager,
      );
    }
    await manager.update(ListEntity, { id: list.id }, { status, creditsHeld: 0, completedAt: () => 'now()' });
    const ended = stored(await manager.findOneByOrFail(ListEntity, { id: list.id }));
    if (status === 'completed' && list.webhookUrl) {
      const { webhook: _pending, ...announced } = ended.view;
      await addDelivery(manager, list.id, list.webhookUrl, JSON.stringify(announced));
    }
    return ended;
  }

  /** A list whose rows are all settled at upload (nothing chargeable) completes at once. */
  async completeIfDone(listId: string): Promise<StoredList | null> {
    return this.dataSource().transaction(async (manager) => {
      const list = await manager.findOne(ListEntity, { where: { id: listId }, lock: { mode: 'pessimistic_write' } });
      if (!list || list.status !== 'queued' || list.processed < list.total) return null;
      return this.finish(manager, list, 'completed');
    });
  }

  /** Whether the feed may go on sending the list's rows: false once it is paused or over. */
  async feeding(listId: string): Promise<boolean> {
    return this.lists.exists({ where: { id: listId, status: In(RUNNING) } });
  }

  /**
   * The account is suspended: its running lists pause, in the caller's transaction. Their credits
   * stay held and the feed sends no more of their rows (rows already sent still settle). Their ids.
   */
  async pauseAccount(manager: EntityManager, accountId: string): Promise<string[]> {
    const [rows] = (await manager.query(
      `UPDATE lists SET status = 'paused' WHERE account_id = $1 AND status IN ('queued', 'processing') RETURNING id`,
      [accountId],
    )) as [Array<{ id: string }>, number];
    return rows.map((row) => row.id);
  }

  /**
   * The account is unsuspended: its paused lists are queued again. Their ids: the caller completes
   * those whose rows all settled while paused (completeIfDone) and feeds the others.
   */
  async resumeAccount(manager: EntityManager, accountId: string): Promise<string[]> {
    const [rows] = (await manager.query(
      `UPDATE lists SET status = 'queued' WHERE account_id = $1 AND status = 'paused' RETURNING id`,
      [accountId],
    )) as [Array<{ id: string }>, number];
    return rows.map((row) => row.id);
  }

  /** DELETE of a running list: it stops, and what it holds beyond its charges comes back. */
  async cancel(listId: string, accountId: string): Promise<StoredList | null> {
    return this.dataSource().transaction(async (manager) => {
      const list = await manager.findOne(ListEntity, {
        where: { id: listId, accountId, status: In(OPEN) },
        lock: { mode: 'pessimistic_write' },
      });
      return list ? this.finish(manager, list, 'cancelled') : null;
    });
  }

  /** DELETE of a finished list: it and its rows are gone. */
  async remove(listId: string, accountId: string): Promise<boolean> {
    const removed = await this.lists.delete({ id: listId, accountId, status: In(FINISHED) });
    return (removed.affected ?? 0) > 0;
  }

  /** Rows in order from `afterRow`, with the result of their first occurrence for duplicates. */
  async results(
    listId: string,
    options: { status: Status | null; afterRow?: number; offset?: number; limit: number },
  ): Promise<ResultRow[]> {
    const query = this.rows
      .createQueryBuilder('r')
      .leftJoin(ListRowEntity, 'f', 'f.listId = r.listId AND f.row = r.duplicateOf')
      .select('r.row', 'row')
      .addSelect('r.fields', 'fields')
      .addSelect('r.email', 'email')
      .addSelect('coalesce(r.result, f.result)', 'result')
      .where('r.listId = :listId AND r.row > :afterRow', { listId, afterRow: options.afterRow ?? 0 })
      .orderBy('r.row')
      .limit(options.limit)
      .offset(options.offset ?? 0);
    if (options.status !== null) query.andWhere('r.status = :status', { status: options.status });
    return query.getRawMany<ResultRow>();
  }

  async countResults(listId: string, status: Status | null): Promise<number> {
    return this.rows.countBy({ listId, ...(status !== null ? { status } : {}) });
  }

  /**
   * Lists to take up again at start; uploads that never finished are dropped. With `jobsLost` (one
   * process, whose jobs lived in its memory) every unsettled row is to be dispatched again now.
   */
  async running(jobsLost = false): Promise<string[]> {
    await this.lists
      .createQueryBuilder()
      .delete()
      .where("status = 'uploading' AND created_at < now() - interval '1 hour'")
      .execute();
    const ids = (await this.lists.find({ select: { id: true }, where: { status: In(RUNNING) } })).map((row) => row.id);
    if (jobsLost) {
      // Paused lists too: their rows in flight were lost with the rest, and are sent again once resumed.
      const paused = (await this.lists.find({ select: { id: true }, where: { status: 'paused' } })).map(
        (row) => row.id,
      );
      const lost = [...ids, ...paused];
      if (lost.length > 0) {
        await this.marks.delete({ listId: In(lost) });
        // Their greylisting retries (delayed jobs) were lost too.
        await this.rows.update({ listId: In(lost), settled: false, retryAt: Not(IsNull()) }, { retryAt: null });
        // Their feeds are to read those rows again.
        await this.lists.update({ id: In(lost) }, { fedAt: null });
      }
    }
    return ids;
  }
}
