import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What customers report about addresses they checked (delivered or bounced): per account and
 * address, and by domain and local part, which is what the catch-all model learns from.
 */
export class Feedback1764288000000 implements MigrationInterface {
  name = 'Feedback1764288000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE feedback (
        id bigserial PRIMARY KEY,
        account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        email text NOT NULL,
        key text NOT NULL,
        domain text NOT NULL,
        local_part text NOT NULL,
        outcome text NOT NULL CHECK (outcome IN ('delivered', 'bounced')),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query('CREATE INDEX feedback_account_key ON feedback (account_id, key)');
    await runner.query('CREATE INDEX feedback_domain ON feedback (domain, created_at)');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE feedback');
  }
}
