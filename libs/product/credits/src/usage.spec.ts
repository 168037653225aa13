import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataSource } from 'typeorm';
import { Database, type UsageKind } from '@mailguard/db';
import { createLogger } from '@mailguard/logger';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/services';
import { USAGE_REF_PREFIX, usageBetween, type UsageRow } from './usage';
import { Random } from '../../../../test/fuzz/random';

const KINDS = Object.keys(USAGE_REF_PREFIX) as UsageKind[];
const FIRST_DAY = Date.parse('2026-03-27T00:00:00Z');
const DAY_MS = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * usageBetween on both databases the service runs on, over a ledger written across days (its rows'
 * times set, near midnight UTC included): for random periods the credits add up to the ledger's
 * charges less refunds, each day and kind to its own, and the checks to the verifications and the
 * list rows of the day. A failure names its seed (USAGE_SEED runs it again).
 */
describe.each(['postgres', 'embedded'] as const)('usageBetween (%s)', (mode) => {
  jest.setTimeout(60_000);
  let database: Database;
  let server: TestDatabase | null = null;
  let dataDir: string | null = null;
  let source: DataSource;

  beforeAll(async () => {
    if (mode === 'postgres') server = await createTestDatabase();
    else dataDir = mkdtempSync(join(tmpdir(), 'mailguard-usage-'));
    database = await Database.open(
      { url: server?.url ?? null, embeddedDataDir: dataDir ?? '' },
      createLogger({ level: 'silent', hashKey: 'test', secrets: [] }, 'test'),
    );
    source = database.dataSource;
  });

  afterAll(async () => {
    await database?.stop();
    await server?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  async function mix(seed: number): Promise<void> {
    const rng = new Random(seed);
    const account = `acc_usage_${mode}_${seed}`;
    await source.query(
      "INSERT INTO accounts (id, email, email_key, balance, webhook_secret) VALUES ($1, $2, $2, 0, 'secret')",
      [account, `${account}@example.test`],
    );
    /** What each day and kind should say: the ledger's net and the checks, kept here as they are written. */
    const expected = new Map<string, { credits: number; checks: number }>();
    const add = (ms: number, kind: UsageKind, credits: number, checks: number) => {
      const key = `${dayOf(ms)} ${kind}`;
      const row = expected.get(key) ?? { credits: 0, checks: 0 };
      expected.set(key, { credits: row.credits + credits, checks: row.checks + checks });
    };
    const ledger: Array<[number, number, string, string | null]> = [];
    const verifications: Array<[number, UsageKind, number]> = [];
    const listUsage = new Map<string, number>();
    // Times anywhere in ten days, or a few seconds either side of a midnight.
    const at = () =>
      rng.next() < 0.3
        ? FIRST_DAY + rng.int(1, 9) * DAY_MS + rng.int(-3_000, 3_000)
        : FIRST_DAY + rng.int(0, 10 * DAY_MS - 1);
    for (let n = 0; n < 60; n++) {
      const kind = rng.pick(KINDS);
      const when = at();
      const ref = `${USAGE_REF_PREFIX[kind]}_${seed}_${n}`;
      if (kind === 'list') {
        // A hold, rows charged out of it (release and charge) on later days, the rest released: only the charges count.
        const held = rng.int(1, 20);
        ledger.push([when, -held, 'hold', ref]);
        let left = held;
        let time = when;
        for (let part = 0; left > 0 && part < 3; part++) {
          time += rng.int(0, DAY_MS);
          const charged = rng.int(0, left);
          const rows = charged + rng.int(0, 5);
          listUsage.set(`${ref} ${dayOf(time)}`, (listUsage.get(`${ref} ${dayOf(time)}`) ?? 0) + rows);
          add(time, 'list', charged, rows);
          if (charged > 0)
            ledger.push([time, charged, 'release', `${ref}.${part}`], [time, -charged, 'charge', `${ref}.${part}`]);
          left -= charged;
        }
        if (left > 0) ledger.push([time, left, 'release', ref]);
        continue;
      }
      // A charge taken up front; its refund (unknown answers, nobody found), when any, a moment later: maybe the next day.
      const cost = kind === 'batch' ? rng.int(1, 5) : 1;
      const refunded = rng.int(0, cost);
      const answered = when + rng.int(0, 5_000);
      ledger.push([when, -cost, 'charge', ref]);
      add(when, kind, cost, 0);
      if (refunded > 0) {
        ledger.push([answered, refunded, 'refund', ref]);
        add(answered, kind, -refunded, 0);
      }
      const checks = kind === 'finder' ? (refunded === 0 ? 1 : 0) : cost;
      for (let check = 0; check < checks; check++) {
        verifications.push([answered, kind, check < cost - refunded ? 1 : 0]);
        add(answered, kind, 0, 1);
      }
    }
    // Movements that are not usage.
    ledger.push([at(), 2_500, 'grant', null], [at(), -7, 'adjust', null]);

    for (const [ms, delta, kind, ref] of ledger)
      await source.query(
        `INSERT INTO credit_transactions (account_id, delta, kind, reason, ref, balance_after, created_at)
         VALUES ($1, $2, $3, 'test', $4, 0, $5)`,
        [account, delta, kind, ref, new Date(ms).toISOString()],
      );
    for (const [index, [ms, kind, credits]] of verifications.entries())
      await source.query(
        `INSERT INTO verifications (id, account_id, email, kind, status, reason, credits, created_at)
         VALUES ($1, $2, NULL, $3, 'valid', 'accepted_email', $4, $5)`,
        [`ver_${account}_${index}`, account, kind, credits, new Date(ms).toISOString()],
      );
    for (const [key, checks] of listUsage) {
      const [listId, day] = key.split(' ');
      await source.query('INSERT INTO list_usage (list_id, day, account_id, checks) VALUES ($1, $2, $3, $4)', [
        listId,
        day,
        account,
        checks,
      ]);
    }

    const net = (from: string, to: string) =>
      ledger
        .filter(([ms, , kind]) => (kind === 'charge' || kind === 'refund') && dayOf(ms) >= from && dayOf(ms) <= to)
        .reduce((sum, [, delta]) => sum - delta, 0);
    const sum = (rows: UsageRow[]) => rows.reduce((total, row) => total + row.credits, 0);

    // The whole range, day by day and kind by kind.
    const all = await usageBetween(source, account, dayOf(FIRST_DAY - DAY_MS), dayOf(FIRST_DAY + 12 * DAY_MS));
    const want = [...expected.entries()]
      .map(([key, row]) => ({ date: key.split(' ')[0], kind: key.split(' ')[1], ...row }))
      .filter((row) => row.checks > 0 || row.credits !== 0)
      .sort((a, b) => (a.date === b.date ? a.kind.localeCompare(b.kind) : a.date.localeCompare(b.date)));
    expect(all).toEqual(want.map(({ date, kind, checks, credits }) => ({ date, kind, checks, credits })));
    // Random periods: the credits add up to the ledger's charges less refunds in them.
    for (let n = 0; n < 20; n++) {
      const a = dayOf(FIRST_DAY + rng.int(-1, 11) * DAY_MS);
      const b = dayOf(FIRST_DAY + rng.int(-1, 11) * DAY_MS);
      const [from, to] = a <= b ? [a, b] : [b, a];
      expect([from, to, sum(await usageBetween(source, account, from, to))]).toEqual([from, to, net(from, to)]);
    }
  }

  it('adds up to the ledger for random periods, day by day and kind by kind', async () => {
    const base = process.env.USAGE_SEED ? Number(process.env.USAGE_SEED) : Math.floor(Math.random() * 2 ** 31);
    for (let n = 0; n < 5; n++) {
      const seed = base + n;
      try {
        await mix(seed);
      } catch (error) {
        if (error instanceof Error)
          error.message = `usage mix with seed ${seed} (USAGE_SEED=${seed}): ${error.message}`;
        throw error;
      }
    }
  });
});
