import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Charges taken up front whose answer is still to come (a single or batch check, the finder): a
 * row from the charge's statement until the gateway settles it, so that the charge of a check whose
 * gateway stopped on the way (its answer lost, its job never queued) is found and refunded by the
 * charge sweep once `due_at` has passed.
 */
export class OpenCharges1764720000000 implements MigrationInterface {
  name = 'OpenCharges1764720000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE open_charges (
        account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        ref text NOT NULL,
        amount integer NOT NULL,
        kind text NOT NULL CHECK (kind IN ('single', 'batch', 'finder', 'widget')),
        checks jsonb NOT NULL,
        due_at timestamptz NOT NULL,
        PRIMARY KEY (account_id, ref)
      )`);
    // The sweep takes the charges whose time has come, oldest first.
    await runner.query('CREATE INDEX open_charges_due ON open_charges (due_at)');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE open_charges');
  }
}
