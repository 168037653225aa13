/**
 * A CTE (`relaxed`) after which its statement's own transaction commits without waiting for the
 * WAL flush; the statement must read from `relaxed` for it to run. Only for writes that stand
 * alone, where a disk flush is most of the write's time: a crash of Postgres itself (not of ours)
 * can lose the last fraction of a second of these commits (wal_writer_delay, ×3 at most), whole
 * transactions only, and always a suffix of the commit order, since any later synchronous commit
 * flushes them first. So never for one half of something whose other half is another transaction.
 */
export const RELAXED_COMMIT = `relaxed AS (SELECT set_config('synchronous_commit', 'off', true))`;
