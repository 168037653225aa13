import type { DataSource } from 'typeorm';
import { createDataSource, runMigrations } from '@mailguard/db';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/services';
import { hashToken, newToken, removeEndedLogins, SESSION_IDLE_MS } from './sessions';

/** The retention sweep's part for logins: ended sessions and spent links go, live ones stay. */
let database: TestDatabase;
let source: DataSource;

beforeAll(async () => {
  database = await createTestDatabase();
  source = createDataSource({ url: database.url, poolSize: 2 });
  await source.initialize();
  await runMigrations(source);
  await source.query(
    "INSERT INTO accounts (id, email, email_key, webhook_secret) VALUES ('acc_sweep', 'o@acme.test', 'o@acme.test', 'whsec')",
  );
});

afterAll(async () => {
  await source?.destroy();
  await database?.drop();
});

const ago = (ms: number) => new Date(Date.now() - ms);
const ahead = (ms: number) => new Date(Date.now() + ms);

async function session(id: string, lastSeenAt: Date, expiresAt: Date): Promise<void> {
  await source.query(
    `INSERT INTO sessions (id, token_hash, account_id, device, client_ip, last_seen_at, expires_at)
     VALUES ($1, $2, 'acc_sweep', 'Firefox', '203.0.113.9', $3, $4)`,
    [id, hashToken(newToken()), lastSeenAt, expiresAt],
  );
}

async function link(name: string, expiresAt: Date, usedAt: Date | null): Promise<void> {
  await source.query(
    "INSERT INTO auth_tokens (token_hash, kind, account_id, expires_at, used_at) VALUES ($1, 'password_reset', 'acc_sweep', $2, $3)",
    [name, expiresAt, usedAt],
  );
}

it('deletes sessions past their idle or absolute end and spent links, in batches, and keeps the rest', async () => {
  await session('ses_live', ago(60_000), ahead(86_400_000));
  await session('ses_idle', ago(SESSION_IDLE_MS + 60_000), ahead(86_400_000));
  await session('ses_old', ago(60_000), ago(1_000));
  await session('ses_idle2', ago(SESSION_IDLE_MS + 120_000), ahead(86_400_000));
  await link('fresh', ahead(60_000), null);
  await link('used', ahead(60_000), ago(1_000));
  await link('expired', ago(1_000), null);

  expect(await removeEndedLogins(source, 2)).toEqual({ sessions: 3, links: 2 });
  const sessions = (await source.query('SELECT id FROM sessions')) as Array<{ id: string }>;
  expect(sessions.map((row) => row.id)).toEqual(['ses_live']);
  const links = (await source.query('SELECT token_hash FROM auth_tokens')) as Array<{ token_hash: string }>;
  expect(links.map((row) => row.token_hash)).toEqual(['fresh']);
  expect(await removeEndedLogins(source)).toEqual({ sessions: 0, links: 0 });
});
