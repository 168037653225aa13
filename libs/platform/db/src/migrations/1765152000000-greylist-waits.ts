import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When a list row's greylisting retry is due: set when the prober sends the row back to wait (a delayed job),
 * so a list's progress can say "N rows waiting for a greylisting retry, next try at …" instead of an estimate
 * that grows while they wait.
 */
export class GreylistWaits1765152000000 implements MigrationInterface {
  name = 'GreylistWaits1765152000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE list_rows ADD COLUMN retry_at timestamptz');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE list_rows DROP COLUMN retry_at');
  }
}
