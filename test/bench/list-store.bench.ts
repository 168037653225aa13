import { CreditLedger } from '@mailguard/credits';
import type { VerificationResult } from '@mailguard/engine';
import { ListStore, type UploadRow } from '@mailguard/lists';
import { createMigratedDatabase } from '../support/services';

/**
 * `npm run bench:list-store`: what Postgres spends on a list's bookkeeping at 100,000 and at
 * 1,000,000 rows, through ListStore itself (issue 33: the cost per row must not grow with the list).
 * Each list is stored as an upload stores it (60% of its rows at five big domains, the rest over 300,
 * 5% repeats, 3% syntax failures) and brought to the middle of its run: every row dispatched (the
 * feed runs ahead of the scoring) but 20 groups of the big domains, the first half settled, 100
 * rows waiting for a greylisting retry, then vacuumed. Then the median ms of: a customer's poll of the
 * list (GET /v1/lists/:id); a sweep's feed of the list once fed (what every sweep does while the list
 * runs, see ListStore.feedScope); the plan of a feed taken up midway (after a hand-back: it counts and reads the
 * rows never dispatched, once per feed, not per sweep); and each of the 20 groups of 500 rows marked
 * dispatched, then settled. The database alone: no lab, no
 * workers. `BENCH_SIZES` (comma list) changes the sizes.
 */
const SIZES = (process.env.BENCH_SIZES ?? '100000,1000000').split(',').map(Number);
const PROVIDERS = ['gmail.bench', 'outlook.bench', 'yahoo.bench', 'icloud.bench', 'gmx.bench'];
const GROUP = 500;
const GROUPS = 20;

/** A settled row's result as the scoring worker stores it, near its real size. */
const result = (email: string): VerificationResult =>
  ({
    email,
    status: 'valid',
    reachable: 'safe',
    reason: 'accepted_email',
    score: 97,
    isFree: false,
    isRole: false,
    hasGravatar: false,
    smtp: { code: 250, message: '2.1.5 Recipient OK', catchAll: false, tls: true },
    domain: { name: email.split('@')[1], mx: ['mx1.bench', 'mx2.bench'], disposable: false },
    checkedAt: new Date().toISOString(),
  }) as unknown as VerificationResult;

function uploadRow(n: number): UploadRow {
  // Every 20th row repeats the row before it; every 33rd fails its syntax.
  const identity = n % 20 === 7 ? n - 1 : n;
  const domain = identity % 10 < 6 ? PROVIDERS[identity % 5] : `company${identity % 300}.bench`;
  const email = `person${identity}@${domain}`;
  if (n % 33 === 0)
    return {
      row: n,
      fields: [String(n), 'not an address'],
      email: 'not an address',
      key: null,
      domain: null,
      result: { status: 'invalid', reachable: 'invalid' } as VerificationResult,
    };
  return { row: n, fields: [String(n), email], email, key: email, domain, result: null };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function timed(times: number, what: (index: number) => Promise<unknown>): Promise<number> {
  const spent: number[] = [];
  for (let index = 0; index < times; index++) {
    const started = performance.now();
    await what(index);
    spent.push(performance.now() - started);
  }
  return median(spent);
}

async function measure(size: number): Promise<string> {
  const { database, sources, close } = await createMigratedDatabase(1);
  try {
    const source = sources[0];
    const store = new ListStore(() => source);
    const accountId = 'acc_bench';
    await database.query("INSERT INTO accounts (id, email, email_key, webhook_secret) VALUES ($1, $2, $2, 's')", [
      accountId,
      'bench@owner.bench',
    ]);
    await new CreditLedger(() => source).grant(accountId, size, 'bench credits');
    const id = 'lst_bench';
    await store.create({
      id,
      accountId,
      name: 'bench.csv',
      columns: ['id', 'email'],
      delimiter: ',',
      emailColumn: 1,
      webhookUrl: null,
    });
    for (let from = 1; from <= size; from += 10_000)
      await store.insertRows(
        id,
        Array.from({ length: Math.min(10_000, size - from + 1) }, (_, index) => uploadRow(from + index)),
      );
    await store.seal(id, accountId, size);
    await store.start(id);
    // The groups measured: rows of the big domains in the second half, which the feed has still to send.
    const groups: number[][] = [];
    for (const domain of Array.from({ length: GROUPS }, (_, index) => PROVIDERS[index % PROVIDERS.length])) {
      const rows = await database.query<{ row: number }>(
        `SELECT row FROM list_rows WHERE list_id = $1 AND domain = $2 AND NOT settled AND duplicate_of IS NULL
           AND row > $3 AND NOT (row = ANY($4::int[])) ORDER BY row LIMIT $5`,
        [id, domain, size / 2, groups.flat(), GROUP],
      );
      groups.push(rows.map(({ row }) => row));
    }
    // The middle of the run, in bulk (not what is measured): every domain marked dispatched through the first half,
    // which is settled.
    await database.query(
      `INSERT INTO list_feed_marks (list_id, domain, through)
       SELECT $1, domain, max(row) FROM list_rows WHERE list_id = $1 AND row <= $2 AND domain IS NOT NULL GROUP BY domain`,
      [id, size / 2],
    );
    await database.query(
      `UPDATE list_rows SET settled = true, status = 'valid', result = $3::jsonb || jsonb_build_object('email', email)
       WHERE list_id = $1 AND NOT settled AND row <= $2`,
      [id, size / 2, JSON.stringify(result('x@x.bench'))],
    );
    const waiting = await database.query<{ row: number }>(
      'SELECT row FROM list_rows WHERE list_id = $1 AND NOT settled AND duplicate_of IS NULL ORDER BY row DESC LIMIT 100',
      [id],
    );
    await store.greylistWait(
      id,
      waiting.map(({ row }) => row),
      new Date(Date.now() + 600_000),
    );
    await database.query('VACUUM ANALYZE list_rows');

    const poll = await timed(15, () => store.find(id, accountId));
    const plan = () =>
      timed(5, async () => {
        const pending = await store.pendingByDomain(id, 'new', GROUP);
        const own = pending.flatMap((stream) => (stream.domain ? [stream.domain] : []));
        await store.undispatched(id, 'new', 2_000, null, own);
        await store.undispatchedOf(
          id,
          'new',
          own.map((domain) => ({ domain, after: 0, take: GROUP })),
        );
      });
    const takenUp = await plan();
    // The feed that read every row marks the list fed; a sweep's feed then finds nothing to read.
    await store.fed(id);
    const sweep = await timed(15, async () => {
      const started = await store.start(id);
      if (!started || (await store.feedScope(started.row)) !== null)
        throw new Error('a fed list still had rows to feed');
    });
    const mark = await timed(groups.length, (index) =>
      store.markDispatched(id, PROVIDERS[index % PROVIDERS.length], groups[index][groups[index].length - 1]),
    );
    const settle = await timed(groups.length, (index) =>
      store.settle(
        id,
        groups[index].map((row) => ({ row, result: result(`person${row}@bench`) })),
      ),
    );
    const f = (ms: number, width: number) => ms.toFixed(1).padStart(width);
    return `${size.toLocaleString('en').padStart(14)} | ${f(poll, 9)} | ${f(sweep, 10)} | ${f(takenUp, 18)} | ${f(mark, 13)} | ${f(settle, 15)}`;
  } finally {
    await close();
  }
}

async function main(): Promise<void> {
  const lines = ['rows (medians) | poll (ms) | sweep (ms) | feed taken up (ms) | mark a group (ms) | settle 500 (ms)'];
  for (const size of SIZES) {
    lines.push(await measure(size));
    process.stdout.write(`${lines[lines.length - 1]}\n`);
  }
  process.stdout.write(`\n${lines.join('\n')}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error instanceof Error ? (error.stack ?? error.message) : error)}\n`);
  process.exitCode = 1;
});
