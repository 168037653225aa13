import { startLab, type Lab } from '../../../../test/lab';
import type { Scenario } from '../../../../test/lab/scenario';
import { createResolver, lookupFailure, type DnsResolver } from './resolver';

/** The resolver's address cache against the mail lab's real DNS server (its records' TTL: 300 s). */
const scenario: Scenario = {
  domains: {
    'hosts.test': {
      records: {
        mx1: { a: ['203.0.113.1', '203.0.113.2'] },
        mx2: { a: ['203.0.113.3'], aaaa: ['2001:db8::3'] },
        // TTL 0: the name wants asking every time.
        moving: { rebind: ['203.0.113.7', '203.0.113.8'] },
      },
    },
    'broken.test': { dns: 'servfail' },
    'mail.test': { mx: [{ host: 'mx.mail.test', priority: 10 }] },
  },
  servers: { 'mx.mail.test': {} },
};

let lab: Lab;
let clock: number;
let resolver: DnsResolver;

beforeAll(async () => {
  lab = await startLab(scenario);
});

afterAll(() => lab.stop());

beforeEach(() => {
  clock = 1_000_000;
  resolver = createResolver({ servers: [lab.dnsServer], timeoutMs: 1_000, tries: 1, now: () => clock });
});

/** How many queries reached the lab's DNS server while `work` ran. */
async function queriesOf(work: () => Promise<unknown>): Promise<number> {
  const before = lab.dns.queries;
  await work();
  return lab.dns.queries - before;
}

const failureOf = (lookup: Promise<unknown>) =>
  lookup.then(
    () => null,
    (error: unknown) => lookupFailure(error),
  );

it('keeps A and AAAA answers for their TTL, then asks again', async () => {
  expect(await resolver.resolve4('mx1.hosts.test')).toEqual(['203.0.113.1', '203.0.113.2']);
  expect(await queriesOf(() => resolver.resolve4('MX1.hosts.test'))).toBe(0);
  expect(await queriesOf(() => resolver.resolve6('mx2.hosts.test'))).toBe(1);
  expect(await resolver.resolve6('mx2.hosts.test')).toEqual(['2001:db8::3']);
  clock += 299_000;
  expect(await queriesOf(() => resolver.resolve4('mx1.hosts.test'))).toBe(0);
  clock += 2_000;
  expect(await queriesOf(() => resolver.resolve4('mx1.hosts.test'))).toBe(1);
});

it('asks once for concurrent look-ups of one name', async () => {
  const queries = await queriesOf(() =>
    Promise.all(Array.from({ length: 20 }, () => resolver.resolve4('mx2.hosts.test'))),
  );
  expect(queries).toBe(1);
});

it('never keeps an answer whose TTL is 0', async () => {
  expect(await resolver.resolve4('moving.hosts.test')).toEqual(['203.0.113.7']);
  expect(await resolver.resolve4('moving.hosts.test')).toEqual(['203.0.113.8']);
});

it('keeps "no such name" and "no records" for a minute, and never a look-up that could not be answered', async () => {
  expect(await failureOf(resolver.resolve4('nothing.hosts.test'))).toBe('nxdomain');
  expect(await failureOf(resolver.resolve6('mx1.hosts.test'))).toBe('nodata');
  const kept = await queriesOf(async () => {
    expect(await failureOf(resolver.resolve4('nothing.hosts.test'))).toBe('nxdomain');
    expect(await failureOf(resolver.resolve6('mx1.hosts.test'))).toBe('nodata');
  });
  expect(kept).toBe(0);
  clock += 61_000;
  expect(await queriesOf(() => failureOf(resolver.resolve4('nothing.hosts.test')))).toBe(1);

  expect(await failureOf(resolver.resolve4('mx.broken.test'))).toBe('error');
  expect(await queriesOf(() => failureOf(resolver.resolve4('mx.broken.test')))).toBe(1);
});

it('answers MX as {exchange, priority} and nothing else, whatever Node adds', async () => {
  expect(await resolver.resolveMx('mail.test')).toStrictEqual([{ exchange: 'mx.mail.test', priority: 10 }]);
});
