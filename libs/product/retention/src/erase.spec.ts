import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataSource } from 'typeorm';
import { Database } from '@mailguard/db';
import { createLogger } from '@mailguard/logger';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/services';
import { filesHolding, findText } from '../../../../test/support/text-scan';
import { compactErased, eraseExpired } from './erase';

/**
 * The retention rules on both databases the service runs on (a real Postgres, and PGlite in a data
 * folder of its own): what is past the cutoff loses its addresses everywhere they are kept, what is
 * younger, the running lists, the ledger, the usage and the list objects stay.
 */
describe.each(['postgres', 'embedded'] as const)('eraseExpired (%s)', (mode) => {
  jest.setTimeout(60_000);
  let database: Database;
  let server: TestDatabase | null = null;
  let dataDir: string | null = null;
  let source: DataSource;

  beforeEach(async () => {
    if (mode === 'postgres') server = await createTestDatabase();
    else dataDir = mkdtempSync(join(tmpdir(), 'mailguard-retention-'));
    database = await Database.open(
      { url: server?.url ?? null, embeddedDataDir: dataDir ?? '' },
      createLogger({ level: 'silent', hashKey: 'test', secrets: [] }, 'test'),
    );
    source = database.dataSource;
    await source.query(
      "INSERT INTO accounts (id, email, email_key, balance, webhook_secret) VALUES ('acc_1', 'owner@example.test', 'owner@example.test', 90, 'secret')",
    );
    await source.query(
      "INSERT INTO credit_transactions (account_id, delta, kind, reason, ref, balance_after) VALUES ('acc_1', 100, 'grant', 'test', NULL, 100), ('acc_1', -10, 'charge', 'list', 'lst_old', 90)",
    );
  });

  afterEach(async () => {
    await database?.stop();
    await server?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    server = null;
    dataDir = null;
  });

  const query = <T>(sql: string, params?: unknown[]) => source.query(sql, params) as Promise<T[]>;

  /** A stored answer that repeats its address where answers do: the local part, and the server's reply. */
  const answer = (email: string) =>
    JSON.stringify({
      email,
      status: 'invalid',
      reason: 'rejected_email',
      checks: { syntax: { localPart: email.split('@')[0] }, smtp: { message: `550 5.1.1 <${email}>: rejected` } },
    });

  async function check(id: string, email: string, daysAgo: number): Promise<void> {
    await source.query(
      `INSERT INTO verifications (id, account_id, email, kind, status, reason, credits, result, created_at)
       VALUES ($1, 'acc_1', $2, 'single', 'invalid', 'rejected_email', 1, $3, now() - make_interval(days => $4))`,
      [id, email, answer(email), daysAgo],
    );
  }

  /** A list made `createdDaysAgo`, finished `completedDaysAgo` (null: still running), one row per address. */
  async function list(id: string, emails: string[], createdDaysAgo: number, completedDaysAgo: number | null) {
    await source.query(
      `INSERT INTO lists (id, account_id, name, status, columns, delimiter, email_column, total, processed, invalid, credits_charged, created_at, completed_at)
       VALUES ($1, 'acc_1', 'leads.csv', $2, '["email","name"]', ',', 0, $3, $3, $3, $3,
         now() - make_interval(days => $4), now() - make_interval(days => $5))`,
      [id, completedDaysAgo === null ? 'processing' : 'completed', emails.length, createdDaysAgo, completedDaysAgo],
    );
    for (const [index, email] of emails.entries()) {
      await source.query(
        `INSERT INTO list_rows (list_id, row, fields, email, key, domain, settled, status, result)
         VALUES ($1, $2, $3, $4, $4, 'acme.test', true, 'invalid', $5)`,
        [id, index + 1, JSON.stringify([email, 'A. Person']), email, answer(email)],
      );
    }
  }

  async function report(email: string, daysAgo: number): Promise<void> {
    await source.query(
      `INSERT INTO feedback (account_id, email, key, domain, local_part, outcome, created_at)
       VALUES ('acc_1', $1, $1, 'acme.test', $2, 'bounced', now() - make_interval(days => $3))`,
      [email, email.split('@')[0], daysAgo],
    );
  }

  async function known(localPart: string, daysAgo: number): Promise<void> {
    await source.query(
      "INSERT INTO domain_evidence (domain, local_part, source, created_at) VALUES ('acme.test', $1, 'verified', now() - make_interval(days => $2))",
      [localPart, daysAgo],
    );
  }

  async function queried(localPart: string, daysAgo: number): Promise<void> {
    await source.query(
      "INSERT INTO domain_queries (domain, local_part, created_at) VALUES ('acme.test', $1, now() - make_interval(days => $2))",
      [localPart, daysAgo],
    );
  }

  const ledger = () => query('SELECT id, delta, kind, reason, ref, balance_after FROM credit_transactions ORDER BY id');
  const counters = () =>
    query('SELECT id, status, total, processed, invalid, credits_charged, completed_at FROM lists ORDER BY id');

  it('erases every address past the cutoff, and nothing younger, running, or of the ledger', async () => {
    await check('ver_old', 'old.check@acme.test', 31);
    await check('ver_new', 'new.check@acme.test', 29);
    await list('lst_old', ['old.row1@acme.test', 'old.row2@acme.test'], 32, 31);
    await list('lst_new', ['new.row@acme.test'], 2, 1);
    // Uploaded long ago and still running: its rows are what it is working on.
    await list('lst_running', ['running.row@acme.test'], 40, null);
    await report('old.report@acme.test', 31);
    await report('new.report@acme.test', 1);
    await known('old.known', 31);
    await known('new.known', 1);
    await queried('old.queried', 31);
    await queried('new.queried', 1);
    const [ledgerBefore, countersBefore] = [await ledger(), await counters()];
    const old = ['old.check', 'old.row1', 'old.row2', 'old.report', 'old.known', 'old.queried'];
    const young = ['new.check', 'new.row', 'running.row', 'new.report', 'new.known', 'new.queried'];
    expect((await findText(query, old)).length).toBeGreaterThan(old.length);
    if (dataDir) {
      await source.query('CHECKPOINT');
      expect(filesHolding(dataDir, old)).not.toEqual([]);
    }

    const erased = await eraseExpired(source, 30);

    expect(erased).toEqual({
      cutoff: expect.any(Date),
      checks: 1,
      lists: 1,
      listRows: 2,
      feedback: 1,
      evidence: 1,
      queries: 1,
    });
    expect(await findText(query, old)).toEqual([]);
    expect(new Set((await findText(query, young)).map((hit) => hit.split(': ')[1]))).toEqual(new Set(young));
    // The usage of the erased check stays: what it was, what it cost and when.
    expect(
      await query("SELECT email, result, kind, status, reason, credits FROM verifications WHERE id = 'ver_old'"),
    ).toEqual([{ email: null, result: null, kind: 'single', status: 'invalid', reason: 'rejected_email', credits: 1 }]);
    expect(await ledger()).toEqual(ledgerBefore);
    expect(await counters()).toEqual(countersBefore);
    expect(
      await query<{ id: string; expired: boolean; rows: number }>(
        'SELECT l.id, l.expired_at IS NOT NULL AS expired, (SELECT count(*)::int FROM list_rows r WHERE r.list_id = l.id) AS rows FROM lists l ORDER BY l.id',
      ),
    ).toEqual([
      { id: 'lst_new', expired: false, rows: 1 },
      { id: 'lst_old', expired: true, rows: 0 },
      { id: 'lst_running', expired: false, rows: 1 },
    ]);

    // The embedded data folder keeps nothing of what was erased: no dead row, no log record.
    if (dataDir) {
      expect(await compactErased(source, erased)).toEqual([
        'verifications',
        'list_rows',
        'feedback',
        'domain_evidence',
        'domain_queries',
        // Settled charges' deleted rows held addresses too.
        'open_charges',
      ]);
      expect(filesHolding(dataDir, old)).toEqual([]);
      expect(filesHolding(dataDir, young)).not.toEqual([]);
    }

    // Nothing is erased twice.
    expect(await eraseExpired(source, 30)).toMatchObject({
      checks: 0,
      lists: 0,
      listRows: 0,
      feedback: 0,
      evidence: 0,
      queries: 0,
    });

    // 0 days: everything up to now, but a running list's rows.
    expect(await eraseExpired(source, 0)).toMatchObject({
      checks: 1,
      lists: 1,
      listRows: 1,
      feedback: 1,
      evidence: 1,
      queries: 1,
    });
    expect(await findText(query, young)).toEqual([
      'list_rows.email: running.row',
      'list_rows.fields: running.row',
      'list_rows.key: running.row',
      'list_rows.result: running.row',
    ]);
    expect(await ledger()).toEqual(ledgerBefore);
  });

  it('erases in batches, and sweeps run side by side erase each row once between them', async () => {
    for (let n = 0; n < 12; n++) {
      await check(`ver_${n}`, `old${n}@acme.test`, 31);
      await report(`old${n}@acme.test`, 31);
      await known(`old${n}`, 31);
    }
    for (let n = 0; n < 3; n++) await list(`lst_${n}`, [`row${n}@acme.test`], 40, 31);

    const sweeps = await Promise.all([eraseExpired(source, 30, 5), eraseExpired(source, 30, 5)]);

    const total = (key: 'checks' | 'lists' | 'listRows' | 'feedback' | 'evidence') =>
      sweeps.reduce((sum, erased) => sum + erased[key], 0);
    expect([total('checks'), total('lists'), total('listRows'), total('feedback'), total('evidence')]).toEqual([
      12, 3, 3, 12, 12,
    ]);
    const localParts = [...Array.from({ length: 12 }, (_, n) => `old${n}`), 'row0', 'row1', 'row2'];
    expect(await findText(query, localParts)).toEqual([]);
  });
});
