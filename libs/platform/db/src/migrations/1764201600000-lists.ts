import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Bulk lists: the list (its counters are the progress customers poll) and one row per CSV data row,
 * holding the customer's own fields, in order, and its result once settled.
 */
export class Lists1764201600000 implements MigrationInterface {
  name = 'Lists1764201600000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE lists (
        id text PRIMARY KEY,
        account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        name text NOT NULL,
        status text NOT NULL CHECK (status IN ('uploading', 'queued', 'processing', 'completed', 'failed', 'cancelled')),
        columns jsonb NOT NULL,
        delimiter text NOT NULL,
        email_column integer NOT NULL,
        webhook_url text,
        total integer NOT NULL DEFAULT 0,
        processed integer NOT NULL DEFAULT 0,
        duplicates integer NOT NULL DEFAULT 0,
        valid integer NOT NULL DEFAULT 0,
        risky integer NOT NULL DEFAULT 0,
        invalid integer NOT NULL DEFAULT 0,
        credits_held integer NOT NULL DEFAULT 0,
        credits_charged integer NOT NULL DEFAULT 0,
        error text,
        created_at timestamptz NOT NULL DEFAULT now(),
        started_at timestamptz,
        completed_at timestamptz
      )`);
    await runner.query('CREATE INDEX lists_account ON lists (account_id, created_at DESC)');
    await runner.query("CREATE INDEX lists_running ON lists (status) WHERE status IN ('queued', 'processing')");
    await runner.query(`
      CREATE TABLE list_rows (
        list_id text NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
        row integer NOT NULL,
        fields jsonb NOT NULL,
        email text NOT NULL,
        -- The normalised address (duplicates share it); null when the syntax fails.
        key text,
        domain text,
        duplicate_of integer,
        settled boolean NOT NULL DEFAULT false,
        dispatched_at timestamptz,
        status text,
        result jsonb,
        PRIMARY KEY (list_id, row)
      )`);
    await runner.query(
      'CREATE INDEX list_rows_pending ON list_rows (list_id, domain, row) WHERE NOT settled AND duplicate_of IS NULL',
    );
    await runner.query('CREATE INDEX list_rows_key ON list_rows (list_id, key)');
    await runner.query(
      'CREATE INDEX list_rows_duplicates ON list_rows (list_id, duplicate_of) WHERE duplicate_of IS NOT NULL',
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE list_rows');
    await runner.query('DROP TABLE lists');
  }
}
