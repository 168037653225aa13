import { setImmediate as turn } from 'node:timers/promises';
import { CreditLedger } from '@mailguard/credits';
import type { Inspection, VerificationEngine, VerificationResult } from '@mailguard/engine';
import { JobHandedBack, type JobRun, type SmtpPayload, type StageContext } from '@mailguard/queue';
import { createMigratedDatabase } from '../../../../test/support/services';
import { FeedHandler } from './handlers';
import { ListStore, type UploadRow } from './list-store';

/**
 * A list's feed against a real Postgres, stopped by its process's shutdown midway: it hands the job
 * back after the groups it holds, and the feed that takes it up sends every other row, none twice.
 * Once fed, the sweeps' feeds send a row again only when its job must have been lost.
 */
jest.setTimeout(30_000);

const DOMAINS = 6;
const ROWS_PER_DOMAIN = 600;

let db: Awaited<ReturnType<typeof createMigratedDatabase>>;
let store: ListStore;

beforeAll(async () => {
  db = await createMigratedDatabase(1);
  store = new ListStore(() => db.sources[0]);
});

afterAll(() => db?.close());

/** Every address has a mail host to ask: each group goes to SMTP as one probe. */
const engine = {
  async inspectGroup(emails: string[]): Promise<Inspection[]> {
    await turn();
    return emails.map((email) => ({ email, needsProbe: true, facts: {} }) as unknown as Inspection);
  },
} as unknown as VerificationEngine;

async function runningList(name = 'feed'): Promise<string> {
  const accountId = `acc_${name}`;
  await db.database.query("INSERT INTO accounts (id, email, email_key, webhook_secret) VALUES ($1, $2, $2, 'secret')", [
    accountId,
    `${accountId}@example.test`,
  ]);
  await new CreditLedger(() => db.sources[0]).grant(accountId, DOMAINS * ROWS_PER_DOMAIN, 'test credits');
  const listId = `lst_${name}`;
  await store.create({
    id: listId,
    accountId,
    name: 'leads.csv',
    columns: ['email'],
    delimiter: ',',
    emailColumn: 0,
    webhookUrl: null,
  });
  const rows: UploadRow[] = [];
  for (let d = 0; d < DOMAINS; d++)
    for (let i = 0; i < ROWS_PER_DOMAIN; i++) {
      const email = `user${i}@feed${d}.test`;
      rows.push({ row: rows.length + 1, fields: [email], email, key: email, domain: `feed${d}.test`, result: null });
    }
  await store.insertRows(listId, rows);
  expect(await store.seal(listId, accountId)).toMatchObject({ sealed: true });
  return listId;
}

it('stopped by a shutdown, hands the feed back after the groups it holds; the next feed sends the rest, no row twice', async () => {
  const listId = await runningList();
  const feed = new FeedHandler(engine, store);
  /** The rows of every probe queued, in order. */
  const sent: number[][] = [];
  const shutdown = new AbortController();
  const jobs: StageContext = {
    async enqueue(name, payload) {
      expect(name).toBe('smtp.probe');
      const { then } = payload as SmtpPayload;
      if (then.to === 'list') sent.push(then.rows);
      // The process is told to stop as its first group is queued: the groups already taken go on.
      shutdown.abort();
    },
    join: async () => undefined,
  };
  const stopped: JobRun = { stopping: shutdown.signal };

  await expect(feed.handle({ listId }, jobs, stopped)).rejects.toBeInstanceOf(JobHandedBack);
  const before = sent.flat();
  expect(before.length).toBeGreaterThan(0);
  expect(before.length).toBeLessThan(DOMAINS * ROWS_PER_DOMAIN);
  // The checkpoint: every row queued so far is behind its domain's mark, and only those.
  const marked = async () =>
    (
      await db.database.query<{ row: number }>(
        `SELECT l.row FROM list_rows l JOIN list_feed_marks m ON m.list_id = l.list_id AND m.domain = l.domain
         WHERE l.list_id = $1 AND l.row <= m.through ORDER BY l.row`,
        [listId],
      )
    ).map(({ row }) => row);
  expect(await marked()).toEqual([...before].sort((a, b) => a - b));

  const resumed = await feed.handle({ listId }, jobs, { stopping: new AbortController().signal });
  const all = sent.flat();
  expect(resumed).toEqual({ dispatched: all.length - before.length });
  expect(new Set(all).size).toBe(all.length);
  expect(all.length).toBe(DOMAINS * ROWS_PER_DOMAIN);
  expect((await marked()).length).toBe(DOMAINS * ROWS_PER_DOMAIN);
});

it('hands back at once a feed its stopping process had not begun', async () => {
  const stopping = new AbortController();
  stopping.abort();
  const jobs: StageContext = { enqueue: async () => undefined, join: async () => undefined };
  await expect(
    new FeedHandler(engine, store).handle({ listId: 'lst_never' }, jobs, { stopping: stopping.signal }),
  ).rejects.toBeInstanceOf(JobHandedBack);
});

it('once a list is fed, sends a row again only when the list has gone quiet and its job must have been lost', async () => {
  const listId = await runningList('quiet');
  const feed = new FeedHandler(engine, store);
  const sent: number[] = [];
  const jobs: StageContext = {
    async enqueue(_name, payload) {
      const { then } = payload as SmtpPayload;
      if (then.to === 'list') sent.push(...then.rows);
    },
    join: async () => undefined,
  };
  const sweep = async () => {
    sent.length = 0;
    return feed.handle({ listId }, jobs);
  };
  expect(await sweep()).toEqual({ dispatched: DOMAINS * ROWS_PER_DOMAIN });
  // Row 3 waits for its greylisting retry; the jobs of the others are lost, which nothing shows yet.
  await store.greylistWait(listId, [3], new Date(Date.now() + 60_000));
  // Fed just now: the rows may merely be queued behind each other.
  expect(await sweep()).toEqual({ dispatched: 0 });
  const quiet = async () => {
    await db.database.query(
      "UPDATE lists SET started_at = now() - interval '16 minutes', fed_at = now() - interval '16 minutes', settled_at = now() - interval '16 minutes' WHERE id = $1",
      [listId],
    );
    await db.database.query("UPDATE list_feed_marks SET at = now() - interval '16 minutes' WHERE list_id = $1", [
      listId,
    ]);
  };
  await quiet();
  // A row settling tells that the list's jobs are being worked through.
  await store.settle(listId, [{ row: 4, result: { reachable: 'safe', status: 'valid' } as VerificationResult }]);
  expect(await sweep()).toEqual({ dispatched: 0 });
  // Dispatched a moment ago, the marks tell that the list is being fed.
  await quiet();
  await store.markDispatched(listId, 'feed0.test', 1);
  expect(await sweep()).toEqual({ dispatched: 0 });
  // Nothing moved for as long: every row unsettled and not waiting for its retry goes again.
  await quiet();
  expect(await sweep()).toEqual({ dispatched: DOMAINS * ROWS_PER_DOMAIN - 2 });
  expect(sent).not.toContain(3);
  expect(sent).not.toContain(4);
  // Fed again: the next sweep leaves the list be.
  expect(await sweep()).toEqual({ dispatched: 0 });
  // Its process's jobs lost (in-process driver), its greylisting retries with them: every unsettled row goes again.
  await store.running(true);
  expect(await sweep()).toEqual({ dispatched: DOMAINS * ROWS_PER_DOMAIN - 1 });
});

it("a list's rows queued behind another list's backlog are not sent again while that backlog settles", async () => {
  const waiting = await runningList('behind');
  const ahead = await runningList('ahead');
  const feed = new FeedHandler(engine, store);
  let sent = 0;
  const jobs: StageContext = {
    async enqueue(_name, payload) {
      const { then } = payload as SmtpPayload;
      if (then.to === 'list') sent += then.rows.length;
    },
    join: async () => undefined,
  };
  await feed.handle({ listId: ahead }, jobs);
  await feed.handle({ listId: waiting }, jobs);
  // Every row of the waiting list went 16 minutes ago and nothing of it has settled since.
  await db.database.query("UPDATE list_feed_marks SET at = now() - interval '16 minutes' WHERE list_id = $1", [
    waiting,
  ]);
  await db.database.query(
    "UPDATE lists SET started_at = now() - interval '16 minutes', fed_at = now() - interval '16 minutes', settled_at = NULL WHERE id = $1",
    [waiting],
  );
  // The list ahead of it in the queue is being worked through: the waiting list's jobs are queued, not lost.
  await store.settle(ahead, [{ row: 1, result: { reachable: 'safe', status: 'valid' } as VerificationResult }]);
  sent = 0;
  expect(await feed.handle({ listId: waiting }, jobs)).toEqual({ dispatched: 0 });
  expect(sent).toBe(0);
  // Nothing anywhere has settled for as long: its jobs are taken for lost and its rows go again.
  await db.database.query("UPDATE lists SET settled_at = now() - interval '16 minutes' WHERE id = $1", [ahead]);
  expect(await feed.handle({ listId: waiting }, jobs)).toEqual({ dispatched: DOMAINS * ROWS_PER_DOMAIN });
});

it('a feed stopped by its list pausing leaves the list unfed: once resumed, the next feed sends the rest, none twice', async () => {
  const listId = await runningList('paused');
  const accountId = 'acc_paused';
  const feed = new FeedHandler(engine, store);
  const sent: number[] = [];
  let pause = true;
  const jobs: StageContext = {
    async enqueue(_name, payload) {
      const { then } = payload as SmtpPayload;
      if (then.to === 'list') sent.push(...then.rows);
      // The account is suspended as the first group is queued: the feed reads no more rows.
      if (pause) await db.sources[0].transaction((manager) => store.pauseAccount(manager, accountId));
      pause = false;
    },
    join: async () => undefined,
  };
  const fedAt = async () =>
    ((await db.database.query('SELECT fed_at FROM lists WHERE id = $1', [listId])) as Array<{ fed_at: Date | null }>)[0]
      .fed_at;
  const paused = await feed.handle({ listId }, jobs);
  expect(paused.dispatched).toBeGreaterThan(0);
  expect(paused.dispatched).toBeLessThan(DOMAINS * ROWS_PER_DOMAIN);
  // Not fed: marked fed, its unsent rows would wait for the list to go quiet.
  expect(await fedAt()).toBeNull();
  // Paused, the sweeps' feeds send nothing.
  expect(await feed.handle({ listId }, jobs)).toEqual({ dispatched: 0 });

  expect(await db.sources[0].transaction((manager) => store.resumeAccount(manager, accountId))).toEqual([listId]);
  const resumed = await feed.handle({ listId }, jobs);
  expect(resumed.dispatched).toBe(DOMAINS * ROWS_PER_DOMAIN - paused.dispatched);
  expect(new Set(sent).size).toBe(DOMAINS * ROWS_PER_DOMAIN);
  expect(sent.length).toBe(DOMAINS * ROWS_PER_DOMAIN);
  expect(await fedAt()).not.toBeNull();
});
