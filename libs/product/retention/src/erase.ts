import type { DataSource } from 'typeorm';

/** What one sweep erased, and the cutoff it erased before. */
export interface Erased {
  cutoff: Date;
  /** Stored checks whose address and answer were cleared (their usage stays). */
  checks: number;
  /** Finished lists whose rows were deleted (the list object and its counters stay), and those rows. */
  lists: number;
  listRows: number;
  /** Customers' delivery reports, and addresses the domain model had learnt from, deleted. */
  feedback: number;
  evidence: number;
  /** Local parts checked at catch-all domains (the model's queries), deleted. */
  queries: number;
}

/** Rows erased per statement: a first sweep over a year of checks runs as many short statements. */
const BATCH = 5_000;

/**
 * One finished list at a time (a list has its `completed_at` from the moment it ends, completed or
 * cancelled; a running list keeps its rows): its rows go and `expired_at` says so, in one
 * statement. A list locked elsewhere (a DELETE under way) is left to the next sweep.
 */
const EXPIRE_LIST = `
  WITH picked AS (
    SELECT id FROM lists WHERE expired_at IS NULL AND completed_at < $1 ORDER BY completed_at LIMIT 1 FOR UPDATE SKIP LOCKED),
  erased AS (DELETE FROM list_rows r USING picked WHERE r.list_id = picked.id RETURNING 1)
  UPDATE lists l SET expired_at = now() FROM picked WHERE l.id = picked.id
  RETURNING (SELECT count(*)::int FROM erased) AS rows`;

/**
 * Per table, one batch of what is past the cutoff. Rows another sweep holds are skipped (SKIP
 * LOCKED), and an erased row no longer matches: gateways sweeping side by side share the work and
 * never wait on each other.
 */
const ERASE = {
  // The usage (kind, status, reason, credits, date) stays; the address, and the answer that repeats it
  // (its local part, a suggestion, the server's reply), go.
  checks: `UPDATE verifications SET email = NULL, result = NULL WHERE id IN (
    SELECT id FROM verifications WHERE email IS NOT NULL AND created_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)`,
  feedback: `DELETE FROM feedback WHERE id IN (
    SELECT id FROM feedback WHERE created_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)`,
  // A local part at its domain is the address: the pattern model learns from what is younger.
  evidence: `DELETE FROM domain_evidence WHERE (domain, local_part) IN (
    SELECT domain, local_part FROM domain_evidence WHERE created_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)`,
  // So is a queried one; a row is dated by its latest check, as the stored check that repeats it.
  queries: `DELETE FROM domain_queries WHERE (domain, local_part) IN (
    SELECT domain, local_part FROM domain_queries WHERE created_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)`,
};

/** Rows an UPDATE or DELETE changed (TypeORM answers `[rows, count]` for those). */
const changed = (raw: unknown) => (raw as [unknown[], number])[1];

/**
 * Erases what verified addresses the service holds beyond `days` (RETENTION_DAYS; 0: everything up
 * to now), measured by the database's clock: stored checks' addresses and answers, the rows of
 * lists finished before the cutoff, feedback, learnt evidence and queried addresses. The ledger, the usage and every
 * list object with its counters stay. Safe to run anywhere, any number of times at once.
 */
export async function eraseExpired(source: DataSource, days: number, batch = BATCH): Promise<Erased> {
  const [{ cutoff }] = (await source.query('SELECT now() - make_interval(days => $1) AS cutoff', [days])) as Array<{
    cutoff: Date;
  }>;
  const erased: Erased = { cutoff, checks: 0, lists: 0, listRows: 0, feedback: 0, evidence: 0, queries: 0 };
  for (;;) {
    const [lists] = (await source.query(EXPIRE_LIST, [cutoff])) as [Array<{ rows: number }>, number];
    if (lists.length === 0) break;
    erased.lists++;
    erased.listRows += lists[0].rows;
  }
  for (const table of ['checks', 'feedback', 'evidence', 'queries'] as const) {
    for (let count = batch; count === batch;) {
      count = changed(await source.query(ERASE[table], [cutoff, batch]));
      erased[table] += count;
    }
  }
  return erased;
}

/** The table each count of Erased is about (lists lose nothing of their own, only their rows). */
const TABLES = {
  checks: 'verifications',
  listRows: 'list_rows',
  feedback: 'feedback',
  evidence: 'domain_evidence',
  queries: 'domain_queries',
};

/**
 * Erased rows live on in the database's files, as dead tuples and in the write-ahead log, until
 * overwritten. Where those files are the service's own (the embedded PGlite's data folder), the
 * tables a sweep erased from are rewritten (VACUUM FULL, which locks each while it runs: quick at
 * the size one process holds) and the log moves to a new segment, the old one deleted rather than
 * kept for reuse. Returns the tables rewritten.
 */
export async function compactErased(source: DataSource, erased: Erased): Promise<string[]> {
  const tables = (Object.keys(TABLES) as Array<keyof typeof TABLES>)
    .filter((key) => erased[key] > 0)
    .map((key) => TABLES[key]);
  if (tables.length === 0) return [];
  // Settled charges' rows, deleted as each check was answered, still hold its address in the file.
  tables.push('open_charges');
  return compactTables(source, tables);
}

/**
 * Rewrites `tables` (VACUUM FULL) and moves the write-ahead log to a new segment, deleting the old
 * one: what was erased from them no longer lies in the embedded database's files. Also used by an
 * operator's erasure of an account. Returns the tables rewritten.
 */
export async function compactTables(source: DataSource, tables: string[]): Promise<string[]> {
  await source.query('SET wal_recycle = off');
  for (const table of tables) await source.query(`VACUUM FULL ${table}`);
  await source.query('SELECT pg_switch_wal()');
  await source.query('CHECKPOINT');
  return tables;
}
