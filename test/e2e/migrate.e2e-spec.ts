import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MIGRATIONS } from '../../libs/platform/db/src/migrations';
import { DIST, runGatewayToExit } from '../support/processes';
import { createTestDatabase, type TestDatabase } from '../support/services';

jest.setTimeout(60_000);

/** The release step of k8s/base/migrate-job.yaml: the built apps/migrate, on a database of its own. */
const MIGRATE = join(DIST, 'apps/migrate/src/main.js');

describe('apps/migrate', () => {
  let database: TestDatabase;
  let cwd: string;

  beforeAll(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'mailguard-migrate-'));
    database = await createTestDatabase();
  });

  afterAll(async () => {
    await database?.drop();
    rmSync(cwd, { recursive: true, force: true });
  });

  const applied = () =>
    database
      .query<{ name: string }>('SELECT name FROM migrations ORDER BY id')
      .then((rows) => rows.map((row) => row.name));
  const columns = () =>
    database.query<{ table_name: string; column_name: string; data_type: string }>(
      `SELECT table_name, column_name, data_type FROM information_schema.columns
       WHERE table_schema = 'public' ORDER BY table_name, column_name`,
    );

  it('migrates a fresh database, then finds nothing to do on a second run', async () => {
    const first = await runGatewayToExit({ DATABASE_URL: database.url }, cwd, MIGRATE);
    expect([first.code, first.stdout, first.stderr]).toEqual([0, 'mailguard migrate: schema up to date\n', '']);
    expect(await applied()).toEqual(MIGRATIONS.map((migration) => migration.name));
    const schema = await columns();
    expect(schema.map((column) => column.table_name)).toEqual(
      expect.arrayContaining(['accounts', 'api_keys', 'list_rows']),
    );

    const second = await runGatewayToExit({ DATABASE_URL: database.url }, cwd, MIGRATE);
    expect([second.code, second.stdout, second.stderr]).toEqual([0, 'mailguard migrate: schema up to date\n', '']);
    expect(await applied()).toEqual(MIGRATIONS.map((migration) => migration.name));
    expect(await columns()).toEqual(schema);
  });

  it('fails the release step, saying why, without DATABASE_URL or with a database that does not exist', async () => {
    const unset = await runGatewayToExit({}, cwd, MIGRATE);
    expect([unset.code, unset.stderr]).toEqual([1, expect.stringContaining('DATABASE_URL is required')]);
    const url = new URL(database.url);
    url.pathname = `/${database.name}_absent`;
    const absent = await runGatewayToExit({ DATABASE_URL: url.toString() }, cwd, MIGRATE);
    expect([absent.code, absent.stderr]).toEqual([1, expect.stringMatching(/^mailguard migrate: .*does not exist/)]);
  });
});
