import { EventEmitter, once } from 'node:events';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { loadConfig } from '@mailguard/config';
import { Database } from '@mailguard/db';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/services';
import { watchTimers } from '../../../../test/support/timers';
import { RetentionSweeps } from './retention.module';

/**
 * The gateway's sweeps from bootstrap to shutdown, on a real Postgres: the first sweep runs at
 * start, and shutting down leaves no timer of the sweeps behind, whether the sweeps worked or failed.
 */
jest.setTimeout(30_000);

let server: TestDatabase;

beforeAll(async () => {
  server = await createTestDatabase();
});

afterAll(async () => {
  await server?.drop();
});

/** A logger whose lines are events: `{ msg, ...fields }` each. */
function listenedLogger() {
  const lines = new EventEmitter();
  const logger = pino(
    { level: 'info' },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.emit('line', JSON.parse(line));
        done();
      },
    }),
  );
  /** The next line with this message. */
  const next = async (msg: string): Promise<Record<string, unknown>> => {
    for (;;) {
      const [line] = (await once(lines, 'line')) as [Record<string, unknown>];
      if (line.msg === msg) return line;
    }
  };
  return { logger, next };
}

/** The sweeps' own timers are set there; the database's pool sets and ends its own. */
const SCHEDULE = 'retention/src/schedule';

const config = loadConfig({ RETENTION_DAYS: '0', RETENTION_SWEEP_SECONDS: '3600' });

it('sweeps at bootstrap, and releases its timer at shutdown', async () => {
  const timers = watchTimers(SCHEDULE);
  const { logger, next } = listenedLogger();
  const database = await Database.open({ url: server.url, embeddedDataDir: '' }, logger);
  await database.dataSource.query(
    "INSERT INTO accounts (id, email, email_key, webhook_secret) VALUES ('acc_1', 'owner@example.test', 'owner@example.test', 's')",
  );
  await database.dataSource.query(
    `INSERT INTO verifications (id, account_id, email, kind, status, reason, credits, result)
     VALUES ('ver_1', 'acc_1', 'john.doe@acme.test', 'single', 'valid', 'accepted_email', 1, '{"email": "john.doe@acme.test"}')`,
  );
  const sweeps = new RetentionSweeps(config, database, logger);
  const swept = next('retention sweep done');
  sweeps.onApplicationBootstrap();
  expect(await swept).toMatchObject({ retention: { checks: 1, lists: 0, feedback: 0, evidence: 0 } });
  expect(await database.dataSource.query("SELECT email FROM verifications WHERE id = 'ver_1'")).toEqual([
    { email: null },
  ]);

  await sweeps.beforeApplicationShutdown();
  await database.stop();
  expect(await timers.open()).toBe(0);
  timers.close();
});

it('reports a sweep the database could not take, and releases its timer at shutdown all the same', async () => {
  const timers = watchTimers(SCHEDULE);
  const { logger, next } = listenedLogger();
  // Nothing listens on port 1: the database stays unavailable.
  const database = await Database.open({ url: 'postgres://postgres@127.0.0.1:1/none', embeddedDataDir: '' }, logger);
  const sweeps = new RetentionSweeps(config, database, logger);
  const failed = next('retention sweep failed; trying again at the next one');
  sweeps.onApplicationBootstrap();
  expect(await failed).toMatchObject({ level: 40, err: { message: expect.stringContaining('database') } });

  await sweeps.beforeApplicationShutdown();
  await database.stop();
  expect(await timers.open()).toBe(0);
  timers.close();
});
