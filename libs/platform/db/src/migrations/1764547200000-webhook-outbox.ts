import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The webhook outbox: a finished list's delivery is written in the transaction that finishes it,
 * with the time of its next attempt, so a restart of any process resumes it and a list is
 * announced once, whoever completes it. One row per list: `pending` until a 2xx (`delivered`) or
 * the last attempt (`failed`).
 */
export class WebhookOutbox1764547200000 implements MigrationInterface {
  name = 'WebhookOutbox1764547200000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE webhook_deliveries (
        list_id text PRIMARY KEY CONSTRAINT webhook_deliveries_list_id_fkey REFERENCES lists(id) ON DELETE CASCADE,
        url text NOT NULL,
        body text NOT NULL,
        status text NOT NULL DEFAULT 'pending' CONSTRAINT webhook_deliveries_status_check CHECK (status IN ('pending', 'delivered', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        last_attempt_at timestamptz,
        last_error text,
        created_at timestamptz NOT NULL DEFAULT now(),
        delivered_at timestamptz
      )`);
    // The senders' poll: the pending deliveries that are due.
    await runner.query(
      "CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'",
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE webhook_deliveries');
  }
}
