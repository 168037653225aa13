import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Addresses known to exist, per domain: accepted by a strict server during a check, registered
 * with Gravatar (at catch-all domains, where the server cannot say), or found by the finder (with
 * the pattern it was built from). With the customers' feedback, what the domain model
 * learns each domain's address pattern from. One row per address: the table grows with distinct
 * addresses, not with checks.
 */
export class DomainEvidence1764460800000 implements MigrationInterface {
  name = 'DomainEvidence1764460800000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE domain_evidence (
        domain text NOT NULL,
        local_part text NOT NULL,
        source text NOT NULL CHECK (source IN ('verified', 'avatar', 'finder')),
        pattern text,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (domain, local_part)
      )`);
    // The model reads a domain's newest evidence first (at most a few thousand rows).
    await runner.query('CREATE INDEX domain_evidence_recent ON domain_evidence (domain, created_at DESC)');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE domain_evidence');
  }
}
