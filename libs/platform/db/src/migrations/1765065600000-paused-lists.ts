import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A list can be `paused`: its account was suspended by an operator (docs/operations.md#operator-console),
 * so no more of its rows are fed and its credits stay held until the account is unsuspended.
 */
export class PausedLists1765065600000 implements MigrationInterface {
  name = 'PausedLists1765065600000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE lists DROP CONSTRAINT lists_status_check');
    await runner.query(
      "ALTER TABLE lists ADD CONSTRAINT lists_status_check CHECK (status IN ('uploading', 'queued', 'processing', 'paused', 'completed', 'failed', 'cancelled'))",
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query("UPDATE lists SET status = 'queued' WHERE status = 'paused'");
    await runner.query('ALTER TABLE lists DROP CONSTRAINT lists_status_check');
    await runner.query(
      "ALTER TABLE lists ADD CONSTRAINT lists_status_check CHECK (status IN ('uploading', 'queued', 'processing', 'completed', 'failed', 'cancelled'))",
    );
  }
}
