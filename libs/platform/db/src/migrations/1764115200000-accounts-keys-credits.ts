import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Accounts, API keys (hashed), the append-only credit ledger and stored verifications. */
export class AccountsKeysCredits1764115200000 implements MigrationInterface {
  name = 'AccountsKeysCredits1764115200000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE accounts (
        id text PRIMARY KEY,
        email text NOT NULL,
        email_key text NOT NULL UNIQUE,
        name text,
        balance integer NOT NULL DEFAULT 0 CHECK (balance >= 0),
        held integer NOT NULL DEFAULT 0 CHECK (held >= 0),
        webhook_secret text NOT NULL,
        signup_ip text,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(`
      CREATE TABLE api_keys (
        id text PRIMARY KEY,
        account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        name text NOT NULL,
        type text NOT NULL CHECK (type IN ('secret', 'widget')),
        scope text NOT NULL CHECK (scope IN ('full', 'verify', 'lists', 'read-only')),
        prefix text NOT NULL,
        key_hash text NOT NULL UNIQUE,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz,
        revoked_at timestamptz
      )`);
    await runner.query('CREATE INDEX api_keys_account ON api_keys (account_id, created_at)');
    await runner.query(`
      CREATE TABLE credit_transactions (
        id bigserial PRIMARY KEY,
        account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        delta integer NOT NULL,
        kind text NOT NULL CHECK (kind IN ('grant', 'charge', 'hold', 'release', 'refund')),
        reason text NOT NULL,
        ref text,
        balance_after integer NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query('CREATE INDEX credit_transactions_account ON credit_transactions (account_id, id DESC)');
    // One charge and at most one refund per check, whatever retries or races happen.
    await runner.query(
      "CREATE UNIQUE INDEX credit_transactions_once ON credit_transactions (account_id, kind, ref) WHERE ref IS NOT NULL AND kind IN ('charge', 'refund')",
    );
    await runner.query(`
      CREATE TABLE verifications (
        id text PRIMARY KEY,
        account_id text REFERENCES accounts(id) ON DELETE CASCADE,
        email text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('single', 'batch', 'list', 'finder', 'widget')),
        status text NOT NULL,
        reason text NOT NULL,
        credits integer NOT NULL,
        result jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query('CREATE INDEX verifications_usage ON verifications (account_id, created_at)');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE verifications');
    await runner.query('DROP TABLE credit_transactions');
    await runner.query('DROP TABLE api_keys');
    await runner.query('DROP TABLE accounts');
  }
}
