/**
 * A CTE (`relaxed`) after which its statement's own transaction commits without waiting for the
 * WAL flush; the statement must read from `relaxed` for it to run. For the writes on a check's
 * answer path — its charge, its usage row, what it teaches — where a disk flush is most of the
 * write's time. What that risks is bounded: only a crash of Postgres itself can lose the last
 * fraction of a second of these commits (wal_writer_delay, ×3 at most), and then as whole
 * transactions — a balance never without its ledger row — and always a suffix of the commit
 * order, since any later synchronous commit (a refund, a hold, a grant) flushes them first. No
 * check can be charged twice or overdraw; at worst checks answered in that instant end up unpaid
 * and unrecorded.
 */
export const RELAXED_COMMIT = `relaxed AS (SELECT set_config('synchronous_commit', 'off', true))`;
