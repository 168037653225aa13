import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Local parts checked at catch-all domains, per domain: before any customer reports, the addresses people
 * check there tell the domain model which pattern the domain uses (people mostly check addresses that
 * exist or look like they do). One row per address, dated by its latest check: the table grows with
 * distinct addresses, not with checks, and retention erases it like the addresses it holds.
 */
export class DomainQueries1765238400000 implements MigrationInterface {
  name = 'DomainQueries1765238400000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE domain_queries (
        domain text NOT NULL,
        local_part text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (domain, local_part)
      )`);
    // The model reads a domain's newest queries (a few hundred); the retention sweep the oldest of all.
    await runner.query('CREATE INDEX domain_queries_recent ON domain_queries (domain, created_at DESC)');
    await runner.query('CREATE INDEX domain_queries_created ON domain_queries (created_at)');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE domain_queries');
  }
}
