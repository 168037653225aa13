import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A feed's checkpoint moves from its rows to its domains (issue 33, docs/benchmarks.md#list-bookkeeping).
 * Marking each row dispatched rewrote every row of a list once more than settling it does, scattered over
 * the table (a domain's rows lie across the whole upload): at 1,000,000 rows those marks were 70% of
 * Postgres' busy time and grew with the list. A feed sends a domain's rows in row order, so "dispatched"
 * is a prefix of each domain's rows: `list_feed_marks` holds, per list and domain, the last row of it
 * dispatched (`through`) and when. `list_rows_key` goes too: only the seal's search for duplicates read
 * it, once per list, and a hash of the list's keys serves that statement as well; every row paid for it.
 */
export class ListFeedMarksByDomain1765600000000 implements MigrationInterface {
  name = 'ListFeedMarksByDomain1765600000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE TABLE list_feed_marks (
      list_id text NOT NULL REFERENCES lists (id) ON DELETE CASCADE,
      domain text NOT NULL,
      through integer NOT NULL,
      at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT list_feed_marks_pkey PRIMARY KEY (list_id, domain)
    )`);
    // What was marked row by row carries over: a running list's feed goes on past it.
    await runner.query(`INSERT INTO list_feed_marks (list_id, domain, through, at)
      SELECT list_id, domain, max(row), max(dispatched_at) FROM list_rows
      WHERE dispatched_at IS NOT NULL AND domain IS NOT NULL GROUP BY list_id, domain`);
    await runner.query('ALTER TABLE list_rows DROP COLUMN dispatched_at');
    await runner.query('DROP INDEX list_rows_key');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('CREATE INDEX list_rows_key ON list_rows (list_id, key)');
    await runner.query('ALTER TABLE list_rows ADD COLUMN dispatched_at timestamptz');
    await runner.query(`UPDATE list_rows r SET dispatched_at = m.at FROM list_feed_marks m
      WHERE r.list_id = m.list_id AND r.domain = m.domain AND r.row <= m.through`);
    await runner.query('DROP TABLE list_feed_marks');
  }
}
