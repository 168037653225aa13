import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When a list's feed last read every row it had to send (`fed_at`) and when a row of it last settled
 * (`settled_at`). A sweep of a fed list that is still settling then reads no row at all, where it
 * read every unsettled row of the list to find none (docs/benchmarks.md#list-bookkeeping), and a
 * row is dispatched again only once its list has gone quiet: a row merely queued behind the others
 * is not sent twice.
 */
export class ListFeedMarks1765500000001 implements MigrationInterface {
  name = 'ListFeedMarks1765500000001';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE lists ADD COLUMN fed_at timestamptz, ADD COLUMN settled_at timestamptz');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE lists DROP COLUMN fed_at, DROP COLUMN settled_at');
  }
}
