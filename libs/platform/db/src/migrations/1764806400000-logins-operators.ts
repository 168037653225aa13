import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Accounts that people sign in to and operators run:
 * a password and a status on the account, members with roles, sessions,
 * one-time links (password reset, invitation), the audit log, and the operators' `adjust` rows in the
 * ledger.
 */
export class LoginsOperators1764806400000 implements MigrationInterface {
  name = 'LoginsOperators1764806400000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE accounts ADD COLUMN password_hash text');
    await runner.query(
      "ALTER TABLE accounts ADD COLUMN status text NOT NULL DEFAULT 'active' CONSTRAINT accounts_status_check CHECK (status IN ('active', 'suspended', 'erased'))",
    );
    await runner.query('ALTER TABLE accounts ADD COLUMN status_reason text');
    await runner.query('ALTER TABLE credit_transactions DROP CONSTRAINT credit_transactions_kind_check');
    await runner.query(
      "ALTER TABLE credit_transactions ADD CONSTRAINT credit_transactions_kind_check CHECK (kind IN ('grant', 'charge', 'hold', 'release', 'refund', 'adjust'))",
    );
    await runner.query(`
      CREATE TABLE members (
        id text PRIMARY KEY,
        account_id text NOT NULL CONSTRAINT members_account_id_fkey REFERENCES accounts (id) ON DELETE CASCADE,
        email text NOT NULL,
        email_key text NOT NULL CONSTRAINT members_email_key_key UNIQUE,
        role text NOT NULL CONSTRAINT members_role_check CHECK (role IN ('admin', 'developer', 'billing')),
        password_hash text,
        created_at timestamptz NOT NULL DEFAULT now(),
        accepted_at timestamptz
      )`);
    await runner.query('CREATE INDEX members_account ON members (account_id)');
    await runner.query(`
      CREATE TABLE sessions (
        id text PRIMARY KEY,
        token_hash text NOT NULL CONSTRAINT sessions_token_hash_key UNIQUE,
        account_id text NOT NULL CONSTRAINT sessions_account_id_fkey REFERENCES accounts (id) ON DELETE CASCADE,
        member_id text CONSTRAINT sessions_member_id_fkey REFERENCES members (id) ON DELETE CASCADE,
        device text,
        client_ip text,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_seen_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL
      )`);
    await runner.query('CREATE INDEX sessions_account ON sessions (account_id)');
    await runner.query(`
      CREATE TABLE auth_tokens (
        token_hash text PRIMARY KEY,
        kind text NOT NULL CONSTRAINT auth_tokens_kind_check CHECK (kind IN ('password_reset', 'invitation')),
        account_id text NOT NULL CONSTRAINT auth_tokens_account_id_fkey REFERENCES accounts (id) ON DELETE CASCADE,
        member_id text CONSTRAINT auth_tokens_member_id_fkey REFERENCES members (id) ON DELETE CASCADE,
        expires_at timestamptz NOT NULL,
        used_at timestamptz
      )`);
    await runner.query(`
      CREATE TABLE audit_log (
        id bigserial PRIMARY KEY,
        account_id text CONSTRAINT audit_log_account_id_fkey REFERENCES accounts (id) ON DELETE CASCADE,
        actor text NOT NULL,
        action text NOT NULL,
        target text,
        detail text,
        client_ip text,
        request_id text,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    // An account's page reads its newest entries first.
    await runner.query('CREATE INDEX audit_log_account ON audit_log (account_id, id DESC)');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE audit_log');
    await runner.query('DROP TABLE auth_tokens');
    await runner.query('DROP TABLE sessions');
    await runner.query('DROP TABLE members');
    await runner.query("DELETE FROM credit_transactions WHERE kind = 'adjust'");
    await runner.query('ALTER TABLE credit_transactions DROP CONSTRAINT credit_transactions_kind_check');
    await runner.query(
      "ALTER TABLE credit_transactions ADD CONSTRAINT credit_transactions_kind_check CHECK (kind IN ('grant', 'charge', 'hold', 'release', 'refund'))",
    );
    await runner.query('ALTER TABLE accounts DROP COLUMN status_reason');
    await runner.query('ALTER TABLE accounts DROP COLUMN status');
    await runner.query('ALTER TABLE accounts DROP COLUMN password_hash');
  }
}
