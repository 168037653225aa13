import type { DataSource } from 'typeorm';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/services';
import { createDataSource, runMigrations } from './data-source';

/**
 * The migrations are the schema; the entities must describe exactly what they build, or TypeORM's
 * queries (and a future generated migration) would rest on a schema that does not exist.
 */
describe('entities and migrations', () => {
  let database: TestDatabase;
  let source: DataSource;

  beforeAll(async () => {
    database = await createTestDatabase();
    source = createDataSource({ url: database.url, poolSize: 2 });
    await source.initialize();
    await runMigrations(source);
  });

  afterAll(async () => {
    await source?.destroy();
    await database?.drop();
  });

  it('has an entity for every table the migrations create', async () => {
    const tables = await source.query<Array<{ name: string }>>(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_name <> 'migrations'",
    );
    const mapped = source.entityMetadatas.map((metadata) => metadata.tableName);
    expect([...mapped].sort()).toEqual(tables.map((table) => table.name).sort());
  });

  it('leaves TypeORM nothing to change in the schema the migrations built', async () => {
    const pending = await source.driver.createSchemaBuilder().log();
    expect(pending.upQueries.map((query) => query.query)).toEqual([]);
  });
});
