import type { DataSource } from 'typeorm';
import { createDataSource, runMigrations } from '@mailguard/db';
import { createTestDatabase, type TestDatabase } from '../../../test/support/services';
import { DomainKnowledge } from './domain-knowledge';

/** What DomainKnowledge reads from a real Postgres: a domain's evidence, and the names learned everywhere. */
let database: TestDatabase;
let source: DataSource;

beforeAll(async () => {
  database = await createTestDatabase();
  source = createDataSource({ url: database.url, poolSize: 2 });
  await source.initialize();
  await runMigrations(source);
  await database.query("INSERT INTO accounts (id, email, email_key, balance, webhook_secret) VALUES ('acc_dk', 'dk@example.test', 'dk@example.test', 0, 'secret')");
});

afterAll(async () => {
  await source.destroy();
  await database.drop();
});

describe('DomainKnowledge', () => {
  it('learns names from addresses known to exist at any domain, not from bounced ones', async () => {
    await database.query("INSERT INTO domain_evidence (domain, local_part, source) VALUES ('one.test', 'gwendolyn.ostrowski', 'avatar'), ('one.test', 'jsmith', 'verified')");
    const report = (email: string, outcome: string) =>
      database.query("INSERT INTO feedback (account_id, email, key, domain, local_part, outcome) VALUES ('acc_dk', $1, $1, split_part($1, '@', 2), split_part($1, '@', 1), $2)", [email, outcome]);
    await report('hallvard.zielke@two.test', 'delivered');
    await report('tamsin.quispe@two.test', 'bounced');
    const knowledge = new DomainKnowledge(() => source);
    expect((await knowledge.named()).sort()).toEqual(['gwendolyn.ostrowski', 'hallvard.zielke']);
    const model = await knowledge.model('three.test');
    expect(model.known.size).toBe(0);
    expect(model.names).toEqual(new Set(['gwendolyn', 'ostrowski', 'hallvard', 'zielke']));
  });
});
