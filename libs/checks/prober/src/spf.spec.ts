import { createResolver, type DnsResolver } from '@mailguard/dns';
import { startLab, type Lab } from '../../../../test/lab';
import type { DomainSpec, Scenario } from '../../../../test/lab/scenario';
import { checkSpf } from './spf';

/** The prober's address in most cases, and its IPv6 one. */
const CLIENT = '192.0.2.10';
const CLIENT6 = '2001:db8:1::10';

/** Eleven MX hosts, at 203.0.113.1 to .11 by priority. */
const manyMx: Record<string, DomainSpec> = Object.fromEntries(
  Array.from({ length: 11 }, (_, index) => [`mx${index + 1}.many-mx.test`, { a: [`203.0.113.${index + 1}`] }]),
);

/** Malformed records and what their permerror says is wrong. */
const SYNTAX_ERRORS: Array<[string, string]> = [
  ['v=spf1 foo -all', 'unknown term "foo"'],
  ['v=spf1 ip4:192.0.2.10 bogus', 'unknown term "bogus"'],
  ['v=spf1 ip4:192.0.2.300 -all', '"ip4:192.0.2.300" does not name an IPv4 network'],
  ['v=spf1 ip6:192.0.2.0/24 -all', '"ip6:192.0.2.0/24" does not name an IPv6 network'],
  ['v=spf1 a/33 -all', 'bad prefix length /33'],
  ['v=spf1 mx//129 -all', 'bad prefix length /129'],
  ['v=spf1 -all:x', '"-all:x" takes no argument'],
  ['v=spf1 include -all', '"include" needs a domain'],
  ['v=spf1 a:localhost -all', '"localhost" is not a domain'],
  ['v=spf1 redirect=a.test redirect=b.test', 'redirect= given twice'],
  ['v=spf1 exists:%{x}.macro.test -all', 'bad macro in "%{x}.macro.test"'],
  ['v=spf1 exists:%{i0}.macro.test -all', 'bad macro transformer in "%{i0}.macro.test"'],
];

/** SPF records as DNS serves them, from the mail lab's DNS server. */
const scenario: Scenario = {
  domains: {
    'ip4.test': { txt: ['v=spf1 ip4:198.51.100.0/24 ip4:192.0.2.0/28 -all'] },
    'upper.test': { txt: ['V=SPF1 IP4:192.0.2.10 -ALL'] },
    'long.test': {
      // Longer than one 255-octet TXT string: DNS carries it in pieces.
      txt: [`v=spf1 ${Array.from({ length: 20 }, (_, n) => `ip4:198.51.100.${n}`).join(' ')} ip4:192.0.2.10 -all`],
    },
    'a.test': { a: [CLIENT], txt: ['v=spf1 a -all'] },
    'mx.test': { mx: [{ host: 'mail.mx.test', priority: 10 }], txt: ['v=spf1 mx -all'] },
    'mail.mx.test': { a: [CLIENT] },
    'include.test': {
      txt: ['v=spf1 include:_spf.include.test ?all'],
      records: {
        _spf: { txt: ['v=spf1 ip4:203.0.113.0/24 include:_inner.include.test -all'] },
        _inner: { txt: ['v=spf1 ip4:192.0.2.10 -all'] },
      },
    },
    'redirect.test': {
      txt: ['v=spf1 ip4:203.0.113.1 redirect=_spf.redirect.test'],
      records: { _spf: { txt: ['v=spf1 a:host.redirect.test ~all'] }, host: { a: [CLIENT] } },
    },
    'fail.test': { txt: ['v=spf1 ip4:203.0.113.1 -all'] },
    'softfail.test': { txt: ['v=spf1 ip4:203.0.113.1 ~all'] },
    'neutral.test': { txt: ['v=spf1 ip4:203.0.113.1 ?all'] },
    'implicit.test': { txt: ['v=spf1 ip4:203.0.113.1'] },
    'qualified.test': { txt: ['v=spf1 -ip4:192.0.2.10 +all'] },
    'no-spf.test': { txt: ['google-site-verification=abc', 'v=spf10 -all', 'v=spf1-all'] },
    'twice.test': { txt: ['v=spf1 -all', 'v=spf1 +all'] },
    'ten.test': { a: ['203.0.113.1'], txt: [`v=spf1 ${'a '.repeat(10)}-all`] },
    'eleven.test': { a: ['203.0.113.1'], txt: [`v=spf1 ${'a '.repeat(11)}-all`] },
    'deep.test': { txt: ['v=spf1 include:ten.test -all'] },
    'include-none.test': { txt: ['v=spf1 include:no-spf.test -all'] },
    'redirect-none.test': { txt: ['v=spf1 redirect=nowhere.test'] },
    'nodata.test': { txt: ['site-verification=abc'] },
    'two-void.test': { txt: ['v=spf1 a:gone1.void.test mx:nodata.test -all'] },
    'three-void.test': { txt: ['v=spf1 a:gone1.void.test mx:nodata.test exists:gone2.void.test -all'] },
    'servfail.test': { dns: 'servfail' },
    'include-servfail.test': { txt: ['v=spf1 ip4:203.0.113.1 include:servfail.test -all'] },
    'a-servfail.test': { txt: ['v=spf1 a:host.servfail.test -all'] },
    'macro.test': {
      records: {
        ip: { txt: ['v=spf1 exists:%{i}._ip.%{d} -all'] },
        '192.0.2.10._ip.ip': { a: ['127.0.0.2'] },
        'mail.reversed': { txt: ['v=spf1 exists:%{ir}.%{v}._spf.%{d2} -all'] },
        '10.2.0.192.in-addr._spf': { a: ['127.0.0.2'] },
        [`${'20010db8000100000000000000000010'.split('').reverse().join('.')}.ip6._spf`]: { a: ['127.0.0.2'] },
        users: { txt: ['v=spf1 exists:%{l1r-}.%{o}._users.%{d2} -all'] },
        'strong.sender.test._users': { a: ['127.0.0.2'] },
        helo: { txt: ['v=spf1 exists:%{h}._helo.%{d2} -all'] },
        'prober.example.net._helo': { a: ['127.0.0.2'] },
        sender: { txt: ['v=spf1 exists:%{s}._s.%{d2} exists:%{l}._l.%{d2} -all'] },
        'postmaster._l': { a: ['127.0.0.2'] },
      },
    },
    'mapped.test': { txt: ['v=spf1 ip6:::ffff:192.0.2.0/120 -all'] },
    'ip6.test': { txt: ['v=spf1 ip4:192.0.2.0/24 ip6:2001:db8:1::/48 -all'] },
    'cidr.test': {
      txt: ['v=spf1 a:host.cidr.test/24//64 -all'],
      records: { host: { a: ['192.0.2.1'], aaaa: ['2001:db8:1::1'] } },
    },
    'exact.test': { txt: ['v=spf1 a:host.cidr.test -all'] },
    'mx-cidr.test': { mx: [{ host: 'mail.mx-cidr.test', priority: 10 }], txt: ['v=spf1 mx/28 -all'] },
    'mail.mx-cidr.test': { a: ['192.0.2.1'] },
    'many-mx.test': {
      mx: Object.keys(manyMx).map((host, index) => ({ host, priority: index + 1 })),
      txt: ['v=spf1 mx -all'],
    },
    ...manyMx,
    'ptr.test': { txt: ['v=spf1 ptr -all'] },
    ...Object.fromEntries(SYNTAX_ERRORS.map(([record], index) => [`syntax-${index}.test`, { txt: [record] }])),
    'modifiers.test': { txt: ['v=spf1 foo=bar ip4:192.0.2.10 exp=explain.%{d} -all'] },
  },
};

let lab: Lab;
let resolver: DnsResolver;

beforeAll(async () => {
  lab = await startLab(scenario);
  resolver = createResolver({ servers: [lab.dnsServer], timeoutMs: 1_000, tries: 1 });
});

afterAll(() => lab.stop());

const check = (domain: string, ip = CLIENT, sender = `bounce@${domain}`) =>
  checkSpf(resolver, { ip, domain, sender, helo: 'prober.example.net' });

describe('pass', () => {
  it('by ip4, naming the matching mechanism and no DNS-querying term', async () => {
    expect(await check('ip4.test')).toEqual({
      result: 'pass',
      record: 'v=spf1 ip4:198.51.100.0/24 ip4:192.0.2.0/28 -all',
      mechanism: 'ip4:192.0.2.0/28',
      lookups: 0,
      problem: null,
    });
    expect(await check('upper.test')).toMatchObject({ result: 'pass', mechanism: 'IP4:192.0.2.10' });
  });

  it('by a record DNS carries in several strings', async () => {
    expect(await check('long.test')).toMatchObject({ result: 'pass', mechanism: 'ip4:192.0.2.10' });
  });

  it('by a and by mx, one look-up each', async () => {
    expect(await check('a.test')).toMatchObject({ result: 'pass', mechanism: 'a', lookups: 1 });
    expect(await check('mx.test')).toMatchObject({ result: 'pass', mechanism: 'mx', lookups: 1 });
  });

  it('by a nested include, naming the top-level include', async () => {
    expect(await check('include.test')).toEqual({
      result: 'pass',
      record: 'v=spf1 include:_spf.include.test ?all',
      mechanism: 'include:_spf.include.test',
      lookups: 2,
      problem: null,
    });
  });

  it("by redirect, naming the mechanism matched in the target's record", async () => {
    expect(await check('redirect.test')).toEqual({
      result: 'pass',
      record: 'v=spf1 ip4:203.0.113.1 redirect=_spf.redirect.test',
      mechanism: 'a:host.redirect.test',
      lookups: 2,
      problem: null,
    });
    expect(await check('redirect.test', '198.51.100.7')).toMatchObject({ result: 'softfail', mechanism: '~all' });
  });

  it('by IPv6 networks, and by IPv4 ones for an IPv4-mapped address', async () => {
    expect(await check('ip6.test', CLIENT6)).toMatchObject({ result: 'pass', mechanism: 'ip6:2001:db8:1::/48' });
    expect(await check('ip6.test', '2001:db8:2::10')).toMatchObject({ result: 'fail', mechanism: '-all' });
    expect(await check('ip6.test', `::ffff:${CLIENT}`)).toMatchObject({
      result: 'pass',
      mechanism: 'ip4:192.0.2.0/24',
    });
    // An ip6 network of IPv4-mapped space covers those IPv4 clients.
    expect(await check('mapped.test')).toMatchObject({ result: 'pass', mechanism: 'ip6:::ffff:192.0.2.0/120' });
    expect(await check('mapped.test', '192.0.3.10')).toMatchObject({ result: 'fail' });
  });

  it('by a and mx with prefix lengths, per address family', async () => {
    expect(await check('cidr.test')).toMatchObject({ result: 'pass', mechanism: 'a:host.cidr.test/24//64' });
    expect(await check('cidr.test', '192.0.3.10')).toMatchObject({ result: 'fail' });
    expect(await check('cidr.test', CLIENT6)).toMatchObject({ result: 'pass' });
    expect(await check('cidr.test', '2001:db8:1:1::1')).toMatchObject({ result: 'fail' });
    // Without a prefix length, a is the exact address.
    expect(await check('exact.test')).toMatchObject({ result: 'fail' });
    expect(await check('mx-cidr.test')).toMatchObject({ result: 'pass', mechanism: 'mx/28' });
    expect(await check('mx-cidr.test', '192.0.2.20')).toMatchObject({ result: 'fail' });
  });
});

describe('fail, softfail, neutral', () => {
  it('come from the qualifier of the matching mechanism', async () => {
    expect(await check('fail.test')).toMatchObject({ result: 'fail', mechanism: '-all', problem: null });
    expect(await check('softfail.test')).toMatchObject({ result: 'softfail', mechanism: '~all' });
    expect(await check('neutral.test')).toMatchObject({ result: 'neutral', mechanism: '?all' });
    expect(await check('qualified.test')).toMatchObject({ result: 'fail', mechanism: '-ip4:192.0.2.10' });
  });

  it('neutral, with no mechanism, when nothing matches and there is no redirect', async () => {
    expect(await check('implicit.test')).toMatchObject({ result: 'neutral', mechanism: null });
  });

  it('an include whose domain fails only does not match', async () => {
    expect(await check('include.test', '198.51.100.7')).toMatchObject({ result: 'neutral', mechanism: '?all' });
  });
});

describe('none', () => {
  it('without a v=spf1 record, at a name that does not exist, or for a malformed domain', async () => {
    const none = { result: 'none', record: null, mechanism: null, lookups: 0, problem: null };
    expect(await check('no-spf.test')).toEqual(none);
    expect(await check('nowhere.test')).toEqual(none);
    expect(await check('localhost')).toEqual(none);
  });
});

describe('permerror', () => {
  it('for two SPF records', async () => {
    expect(await check('twice.test')).toEqual({
      result: 'permerror',
      record: null,
      mechanism: null,
      lookups: 0,
      problem: 'twice.test publishes 2 SPF records',
    });
  });

  it('for more than 10 DNS-querying terms, counted across includes', async () => {
    expect(await check('ten.test')).toMatchObject({ result: 'fail', lookups: 10 });
    expect(await check('eleven.test')).toMatchObject({
      result: 'permerror',
      lookups: 11,
      problem: 'more than 10 DNS look-ups (a)',
    });
    expect(await check('deep.test')).toMatchObject({
      result: 'permerror',
      record: 'v=spf1 include:ten.test -all',
      lookups: 11,
      problem: 'more than 10 DNS look-ups (a)',
    });
  });

  it('for an include or redirect of a domain without an SPF record', async () => {
    expect(await check('include-none.test')).toMatchObject({
      result: 'permerror',
      problem: 'include:no-spf.test: no-spf.test has no SPF record',
    });
    expect(await check('redirect-none.test')).toMatchObject({
      result: 'permerror',
      problem: 'redirect=nowhere.test: nowhere.test has no SPF record',
    });
  });

  it('for a third void look-up (NXDOMAIN or no records), not for two', async () => {
    expect(await check('two-void.test')).toMatchObject({ result: 'fail', lookups: 2 });
    expect(await check('three-void.test')).toMatchObject({
      result: 'permerror',
      problem: 'more than 2 void DNS look-ups (exists:gone2.void.test)',
    });
  });

  it('for more than 10 MX hosts to look up, not when an earlier one matches', async () => {
    expect(await check('many-mx.test')).toMatchObject({
      result: 'permerror',
      problem: 'mx: many-mx.test has more than 10 MX hosts',
    });
    expect(await check('many-mx.test', '203.0.113.1')).toMatchObject({ result: 'pass', mechanism: 'mx' });
  });

  it.each(SYNTAX_ERRORS.map(([record, detail], index) => [record, detail, `syntax-${index}.test`]))(
    'for a syntax error anywhere in the record: %s',
    async (record, detail, domain) => {
      expect(await check(domain)).toEqual({
        result: 'permerror',
        record,
        mechanism: null,
        lookups: 0,
        problem: `the SPF record of ${domain} is malformed: ${detail}`,
      });
    },
  );

  it('ignores unknown modifiers and exp=', async () => {
    expect(await check('modifiers.test')).toMatchObject({ result: 'pass', mechanism: 'ip4:192.0.2.10' });
  });
});

describe('temperror', () => {
  it('when DNS cannot answer, for the record or for a term', async () => {
    expect(await check('servfail.test')).toEqual({
      result: 'temperror',
      record: null,
      mechanism: null,
      lookups: 0,
      problem: 'the SPF (TXT) look-up of servfail.test failed (ESERVFAIL)',
    });
    expect(await check('include-servfail.test')).toMatchObject({
      result: 'temperror',
      record: 'v=spf1 ip4:203.0.113.1 include:servfail.test -all',
      lookups: 1,
      problem: 'the SPF (TXT) look-up of servfail.test failed (ESERVFAIL)',
    });
    expect(await check('a-servfail.test')).toMatchObject({
      result: 'temperror',
      problem: 'a:host.servfail.test: the DNS look-up of host.servfail.test failed (ESERVFAIL)',
    });
  });
});

describe('macros', () => {
  it('%{i} and %{d} in exists', async () => {
    expect(await check('ip.macro.test')).toMatchObject({ result: 'pass', mechanism: 'exists:%{i}._ip.%{d}' });
    // 192.0.2.11._ip.ip.macro.test does not exist.
    expect(await check('ip.macro.test', '192.0.2.11')).toMatchObject({ result: 'fail', lookups: 1 });
  });

  it('%{ir}, %{v} and %{d2}, for IPv4 (octets) and IPv6 (nibbles)', async () => {
    expect(await check('mail.reversed.macro.test')).toMatchObject({ result: 'pass' });
    expect(await check('mail.reversed.macro.test', CLIENT6)).toMatchObject({ result: 'pass' });
    expect(await check('mail.reversed.macro.test', '192.0.2.11')).toMatchObject({ result: 'fail' });
  });

  it('%{l} split at "-", reversed, cut to its last part; %{o} the sender domain', async () => {
    const users = (sender: string) =>
      checkSpf(resolver, { ip: CLIENT, domain: 'users.macro.test', sender, helo: 'prober.example.net' });
    expect(await users('strong-bad@sender.test')).toMatchObject({ result: 'pass' });
    expect(await users('weak-bad@sender.test')).toMatchObject({ result: 'fail' });
  });

  it('%{s} and %{l}: postmaster without a local part; a name DNS cannot carry does not exist', async () => {
    const sender = (address: string) =>
      checkSpf(resolver, { ip: CLIENT, domain: 'sender.macro.test', sender: address, helo: 'prober.example.net' });
    // %{s} puts an "@" in the name: a void look-up, not a temperror.
    expect(await sender('')).toMatchObject({ result: 'pass', mechanism: 'exists:%{l}._l.%{d2}', lookups: 2 });
    expect(await sender('@sender.test')).toMatchObject({ result: 'pass' });
    expect(await sender('bounce@sender.test')).toMatchObject({ result: 'fail', mechanism: '-all' });
  });

  it('%{h}, the HELO name', async () => {
    expect(await check('helo.macro.test')).toMatchObject({ result: 'pass' });
  });
});

describe('ptr', () => {
  it('does not match an address without a confirmed PTR name, and counts its look-up', async () => {
    expect(await check('ptr.test')).toMatchObject({ result: 'fail', mechanism: '-all', lookups: 1 });
  });
});
