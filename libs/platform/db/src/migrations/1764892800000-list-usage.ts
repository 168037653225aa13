import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Usage that adds up (docs/api.md#usage): the rows a list settled per UTC day (its checks; the
 * credits are the ledger's `charge` rows of the list, written as the rows settle), kept when the
 * list itself is deleted; and an index to sum an account's ledger by day.
 */
export class ListUsage1764892800000 implements MigrationInterface {
  name = 'ListUsage1764892800000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE list_usage (
        list_id text NOT NULL,
        day date NOT NULL,
        account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        checks integer NOT NULL,
        PRIMARY KEY (list_id, day)
      )`);
    await runner.query('CREATE INDEX list_usage_account ON list_usage (account_id, day)');
    await runner.query('CREATE INDEX credit_transactions_usage ON credit_transactions (account_id, created_at)');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP INDEX credit_transactions_usage');
    await runner.query('DROP TABLE list_usage');
  }
}
