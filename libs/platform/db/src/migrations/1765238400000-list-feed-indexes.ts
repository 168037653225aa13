import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes whose size follows the work left, not the list: a feed read, a sweep and a poll of a list's progress
 * then cost the same on row 900,000 of a 1,000,000-row list as on row 9,000 of a small one.
 * - list_rows_undispatched, in place of list_rows_pending (which also held every row dispatched and not yet
 *   settled, so that a feed started by a sweep stepped over the whole backlog in flight to find the few rows
 *   left): only the rows the feed is still to send.
 * - list_rows_dispatched: the rows in flight, so that a feed finds those dispatched too long ago (their job
 *   was lost) without reading the others.
 * - list_rows_waiting: the rows waiting for a greylisting retry, which every GET of a running list counts
 *   (a scan of all its rows without it).
 */
export class ListFeedIndexes1765238400000 implements MigrationInterface {
  name = 'ListFeedIndexes1765238400000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      'CREATE INDEX list_rows_undispatched ON list_rows (list_id, domain, row) WHERE NOT settled AND duplicate_of IS NULL AND key IS NOT NULL AND dispatched_at IS NULL',
    );
    await runner.query('DROP INDEX list_rows_pending');
    await runner.query(
      'CREATE INDEX list_rows_dispatched ON list_rows (list_id, dispatched_at) WHERE NOT settled AND dispatched_at IS NOT NULL',
    );
    await runner.query(
      'CREATE INDEX list_rows_waiting ON list_rows (list_id, retry_at) WHERE NOT settled AND retry_at IS NOT NULL',
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP INDEX list_rows_waiting');
    await runner.query('DROP INDEX list_rows_dispatched');
    await runner.query(
      'CREATE INDEX list_rows_pending ON list_rows (list_id, domain, row) WHERE NOT settled AND duplicate_of IS NULL',
    );
    await runner.query('DROP INDEX list_rows_undispatched');
  }
}
