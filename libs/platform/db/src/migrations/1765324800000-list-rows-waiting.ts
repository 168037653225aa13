import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The rows of a list waiting for a greylisting retry, which every GET of a running list counts: without
 * an index of their own that count read all the list's rows, a poll costing ten times more on a
 * 1,000,000-row list than on a 100,000-row one (docs/benchmarks.md#list-bookkeeping).
 */
export class ListRowsWaiting1765324800000 implements MigrationInterface {
  name = 'ListRowsWaiting1765324800000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      'CREATE INDEX list_rows_waiting ON list_rows (list_id, retry_at) WHERE NOT settled AND retry_at IS NOT NULL',
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP INDEX list_rows_waiting');
  }
}
