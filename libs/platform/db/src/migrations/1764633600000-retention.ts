import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Retention: a stored check past RETENTION_DAYS keeps its usage (kind, status, reason, credits) and
 * loses its address and answer (both null); a list keeps its object and counters and loses its rows,
 * `expired_at` saying when. The sweep finds what is due by creation time, through these indexes
 * (the partial one holds only the checks not erased yet).
 */
export class Retention1764633600000 implements MigrationInterface {
  name = 'Retention1764633600000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE verifications ALTER COLUMN email DROP NOT NULL, ALTER COLUMN result DROP NOT NULL');
    await runner.query('CREATE INDEX verifications_unerased ON verifications (created_at) WHERE email IS NOT NULL');
    await runner.query('ALTER TABLE lists ADD COLUMN expired_at timestamptz');
    await runner.query('CREATE INDEX lists_unexpired ON lists (completed_at) WHERE expired_at IS NULL');
    await runner.query('CREATE INDEX feedback_created ON feedback (created_at)');
    await runner.query('CREATE INDEX domain_evidence_created ON domain_evidence (created_at)');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP INDEX domain_evidence_created');
    await runner.query('DROP INDEX feedback_created');
    await runner.query('DROP INDEX lists_unexpired');
    await runner.query('ALTER TABLE lists DROP COLUMN expired_at');
    await runner.query('DROP INDEX verifications_unerased');
    // Erased checks have no address to restore: they keep their usage under empty placeholders.
    await runner.query(
      "UPDATE verifications SET email = coalesce(email, ''), result = coalesce(result, '{}') WHERE email IS NULL OR result IS NULL",
    );
    await runner.query('ALTER TABLE verifications ALTER COLUMN email SET NOT NULL, ALTER COLUMN result SET NOT NULL');
  }
}
