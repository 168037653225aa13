import { createDataSource, runMigrations } from '@mailguard/db';
import type { VerificationResult } from '@mailguard/engine';
import { MAX_QUERIES } from '@mailguard/scoring';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/services';
import { DataSource as TypeOrmDataSource } from 'typeorm';
import { DomainKnowledge, NAMES_REFRESH_MS } from './domain-knowledge';

/** What DomainKnowledge reads from a real Postgres: a domain's evidence, and the names learned everywhere. */
let database: TestDatabase;
let source: TypeOrmDataSource;

beforeAll(async () => {
  database = await createTestDatabase();
  source = createDataSource({ url: database.url, poolSize: 2 });
  await source.initialize();
  await runMigrations(source);
  await database.query(
    "INSERT INTO accounts (id, email, email_key, balance, webhook_secret) VALUES ('acc_dk', 'dk@example.test', 'dk@example.test', 0, 'secret')",
  );
});

afterAll(async () => {
  await source.destroy();
  await database.drop();
});

describe('DomainKnowledge', () => {
  it('learns names from addresses known to exist at any domain, not from bounced ones', async () => {
    await database.query(
      "INSERT INTO domain_evidence (domain, local_part, source) VALUES ('one.test', 'gwendolyn.ostrowski', 'avatar'), ('one.test', 'jsmith', 'verified')",
    );
    const report = (email: string, outcome: string) =>
      database.query(
        "INSERT INTO feedback (account_id, email, key, domain, local_part, outcome) VALUES ('acc_dk', $1, $1, split_part($1, '@', 2), split_part($1, '@', 1), $2)",
        [email, outcome],
      );
    await report('hallvard.zielke@two.test', 'delivered');
    await report('tamsin.quispe@two.test', 'bounced');
    const knowledge = new DomainKnowledge(() => source);
    expect((await knowledge.named()).sort()).toEqual(['gwendolyn.ostrowski', 'hallvard.zielke']);
    const model = await knowledge.model('three.test');
    expect(model.known.size).toBe(0);
    expect(model.names).toEqual(new Set(['gwendolyn', 'ostrowski', 'hallvard', 'zielke']));
  });

  it('reads the names once per NAMES_REFRESH_MS per process, one list held, and uses a name learned since after the refresh', async () => {
    let clock = 1_000_000;
    const knowledge = new DomainKnowledge(() => source, { now: () => clock });
    const first = knowledge.named();
    // Concurrent and later callers within the window share the one read.
    expect(knowledge.named()).toBe(first);
    expect(await first).not.toContain('kasimir.blomqvist');
    await database.query(
      "INSERT INTO domain_evidence (domain, local_part, source) VALUES ('four.test', 'kasimir.blomqvist', 'verified')",
    );
    clock += NAMES_REFRESH_MS - 1;
    expect(knowledge.named()).toBe(first);
    expect((await knowledge.model('five.test')).names.has('blomqvist')).toBe(false);
    clock += 1;
    const refreshed = knowledge.named();
    expect(refreshed).not.toBe(first);
    expect(await refreshed).toContain('kasimir.blomqvist');
    expect((await knowledge.model('five.test')).names.has('blomqvist')).toBe(true);
    expect(knowledge.named()).toBe(refreshed);
  });

  it('does not keep a failed read: the next call reads again', async () => {
    // A data source that was never connected: a real failure, not a stand-in for one.
    let current = new TypeOrmDataSource({ type: 'postgres', url: database.url });
    const knowledge = new DomainKnowledge(() => current, { now: () => 0 });
    await expect(knowledge.named()).rejects.toThrow();
    current = source;
    expect(await knowledge.named()).toContain('gwendolyn.ostrowski');
  });

  it('records every address checked at a catch-all domain as a query there, the newest MAX_QUERIES read by the model', async () => {
    // What learn reads of a verdict, at a catch-all domain, a strict one, a free provider.
    const verdict = (email: string, catchAll: boolean, isFree = false) => {
      const [localPart, domain] = email.split('@');
      return {
        email,
        domain,
        isFree,
        isRole: false,
        hasGravatar: false,
        reason: catchAll ? 'catch_all' : 'rejected_email',
        smtp: { catchAll },
        checks: { syntax: { localPart } },
      } as unknown as VerificationResult;
    };
    const knowledge = new DomainKnowledge(() => source);
    await knowledge.learn([
      verdict('TGreen@catch.test', true),
      verdict('asmith@catch.test', true),
      verdict('asmith@catch.test', true),
      verdict('kwest@strict.test', false),
      verdict('pbrown@gmail.test', true, true),
    ]);
    await knowledge.learn([verdict('mjones@catch.test', true)]);
    await knowledge.learn([verdict('tgreen@catch.test', true)]);
    // One row per address, the one checked again now the newest; none at strict or free domains.
    expect(await knowledge.queried('catch.test')).toEqual(['asmith', 'mjones', 'tgreen']);
    expect(await knowledge.queried('strict.test')).toEqual([]);
    expect(await knowledge.queried('gmail.test')).toEqual([]);
    const model = await knowledge.model('catch.test');
    expect(model.queried).toBe(3);
    // Weak evidence of the pattern, never of an address: nothing is known to exist there.
    expect(model.known.size).toBe(0);

    await knowledge.learn(
      Array.from({ length: MAX_QUERIES + 5 }, (_, index) => verdict(`user.n${index}@many.test`, true)),
    );
    expect(await knowledge.queried('many.test')).toHaveLength(MAX_QUERIES);
  });
});
