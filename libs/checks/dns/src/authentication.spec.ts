import { startLab, type Lab } from '../../../../test/lab';
import type { Scenario } from '../../../../test/lab/scenario';
import { lookupAuthentication } from './authentication';
import { createResolver, type DnsResolver } from './resolver';

/** DMARC policy discovery against the mail lab's real DNS server. */
const scenario: Scenario = {
  domains: {
    'policy.test': {
      txt: ['v=spf1 mx -all'],
      records: {
        _dmarc: { txt: ['v=DMARC1; p=Reject; sp=quarantine; rua=mailto:dmarc@policy.test'] },
        '_dmarc.own': { txt: ['v=DMARC1; p=none'] },
        '_dmarc.twice': { txt: ['v=DMARC1; p=none', 'v=DMARC1; p=reject'] },
        'google._domainkey': { txt: ['v=DKIM1; k=rsa; p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQC1'] },
      },
    },
    'plain.test': { records: { _dmarc: { txt: ['v=DMARC1;p=reject'] } } },
    'none.test': { txt: ['v=spf1 -all'] },
    'multiple.test': { records: { _dmarc: { txt: ['v=DMARC1; p=none', 'v=DMARC1; p=reject'] } } },
    'invalid.test': { records: { _dmarc: { txt: ['v=spf1 -all', 'DMARC1; p=reject', 'v=DMARC10; p=reject'] } } },
    'mixed.test': { records: { _dmarc: { txt: ['site-verification=abc', 'v=DMARC1; p=quarantine'] } } },
    'servfail.test': { dns: 'servfail' },
    // A subdomain whose own zone is broken, below an organisational domain that has a policy.
    'broken.policy.test': { dns: 'servfail' },
    // A healthy subdomain below a broken organisational domain.
    'flaky.test': { dns: 'servfail' },
    'ok.flaky.test': { txt: ['v=spf1 -all'] },
  },
};

let lab: Lab;
let resolver: DnsResolver;

beforeAll(async () => {
  lab = await startLab(scenario);
  resolver = createResolver({ servers: [lab.dnsServer], timeoutMs: 1_000, tries: 1 });
});

afterAll(() => lab.stop());

const dmarcOf = async (domain: string) => (await lookupAuthentication(resolver, domain)).dmarc;
const none = { present: false, policy: null };

it('reads the policy published at the domain, in lower case, beside SPF and DKIM', async () => {
  expect(await lookupAuthentication(resolver, 'policy.test')).toEqual({
    spf: { present: true, record: 'v=spf1 mx -all' },
    dkim: { present: true, selectors: ['google'] },
    dmarc: { present: true, policy: 'reject' },
  });
  expect(await dmarcOf('plain.test')).toEqual({ present: true, policy: 'reject' });
});

it("falls back to the organisational domain for a subdomain, whose policy is that record's sp, else its p", async () => {
  expect(await dmarcOf('mail.policy.test')).toEqual({ present: true, policy: 'quarantine' });
  expect(await dmarcOf('eu.mail.plain.test')).toEqual({ present: true, policy: 'reject' });
  // A subdomain's own record wins over the organisational one.
  expect(await dmarcOf('own.policy.test')).toEqual({ present: true, policy: 'none' });
});

it('reports no policy when neither the domain nor its organisational domain publishes one', async () => {
  expect(await dmarcOf('none.test')).toEqual(none);
  expect(await dmarcOf('www.none.test')).toEqual(none);
  expect(await dmarcOf('nowhere.test')).toEqual(none);
});

it('reports no policy for several DMARC records, without falling back; other TXT records at _dmarc do not count', async () => {
  expect(await dmarcOf('multiple.test')).toEqual(none);
  expect(await dmarcOf('twice.policy.test')).toEqual(none);
  expect(await dmarcOf('invalid.test')).toEqual(none);
  expect(await dmarcOf('mixed.test')).toEqual({ present: true, policy: 'quarantine' });
});

it("reports no policy when DNS cannot answer (SERVFAIL), and never takes the organisational one's place", async () => {
  expect(await dmarcOf('servfail.test')).toEqual(none);
  expect(await dmarcOf('broken.policy.test')).toEqual(none);
  expect(await dmarcOf('ok.flaky.test')).toEqual(none);
});
