import { createResolver, type DnsResolver } from '@mailguard/dns';
import { startLab, type Lab } from '../../../../test/lab';
import type { Scenario } from '../../../../test/lab/scenario';
import { arpaName, queryDnsbl, reversedName } from './dnsbl';

/** DNSBL answers as a list's DNS gives them, from the mail lab's DNS server. */
const scenario: Scenario = {
  domains: {
    'bl.test': {
      records: {
        // 127.0.0.2: every list's "always listed" test address.
        '2.0.0.127': { a: ['127.0.0.2'], txt: ['Listed by bl.test, see https://bl.test/q?ip=127.0.0.2'] },
        '10.2.0.192': { a: ['127.0.0.4', '127.0.0.10'] },
        // No A record at the name: NODATA.
        '11.2.0.192': { txt: ['not a listing'] },
        '20.2.0.192': { a: ['127.255.255.254'] },
        '21.2.0.192': { a: ['127.0.0.2', '127.255.255.252'] },
        '30.2.0.192': { a: ['192.0.2.1'] },
        '0.1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.1.0.0.0.8.b.d.0.1.0.0.2': {
          a: ['127.0.0.3'],
          txt: ['IPv6 spam source'],
        },
      },
    },
    'broken-bl.test': { dns: 'servfail' },
    'silent-bl.test': { dns: 'timeout' },
  },
};

let lab: Lab;
let resolver: DnsResolver;

beforeAll(async () => {
  lab = await startLab(scenario);
  resolver = createResolver({ servers: [lab.dnsServer], timeoutMs: 1_000, tries: 1 });
});

afterAll(() => lab.stop());

describe('reversedName and arpaName', () => {
  it('reverse the octets of an IPv4 address, and of one mapped into IPv6', () => {
    expect(reversedName('127.250.0.2')).toBe('2.0.250.127');
    expect(reversedName('::ffff:127.250.0.2')).toBe('2.0.250.127');
    expect(arpaName('192.0.2.10')).toBe('10.2.0.192.in-addr.arpa');
  });

  it('reverse the 32 nibbles of an IPv6 address', () => {
    const nibbles = '0.1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.1.0.0.0.8.b.d.0.1.0.0.2';
    expect(reversedName('2001:db8:1::10')).toBe(nibbles);
    expect(reversedName('2001:DB8:1:0:0:0:0:10')).toBe(nibbles);
    expect(arpaName('2001:db8:1::10')).toBe(`${nibbles}.ip6.arpa`);
  });

  it('refuse what is not an address', () => {
    expect(() => reversedName('bl.test')).toThrow(TypeError);
    expect(() => arpaName('192.0.2')).toThrow(TypeError);
  });
});

describe('queryDnsbl', () => {
  it('reports a listing with its return codes and TXT reason', async () => {
    expect(await queryDnsbl(resolver, '127.0.0.2', 'bl.test')).toEqual({
      zone: 'bl.test',
      status: 'listed',
      codes: ['127.0.0.2'],
      reason: 'Listed by bl.test, see https://bl.test/q?ip=127.0.0.2',
    });
    expect(await queryDnsbl(resolver, '2001:db8:1::10', 'bl.test')).toEqual({
      zone: 'bl.test',
      status: 'listed',
      codes: ['127.0.0.3'],
      reason: 'IPv6 spam source',
    });
  });

  it('reports a listing without a TXT record, with no reason', async () => {
    const outcome = await queryDnsbl(resolver, '192.0.2.10', 'bl.test');
    expect(outcome).toEqual({ zone: 'bl.test', status: 'listed', codes: expect.any(Array), reason: null });
    expect([...outcome.codes].sort()).toEqual(['127.0.0.10', '127.0.0.4']);
  });

  it('reports clear for NXDOMAIN and for NODATA', async () => {
    const clear = { zone: 'bl.test', status: 'clear', codes: [], reason: null };
    expect(await queryDnsbl(resolver, '192.0.2.99', 'bl.test')).toEqual(clear);
    expect(await queryDnsbl(resolver, '192.0.2.11', 'bl.test')).toEqual(clear);
  });

  it('reports refused, never listed, for 127.255.255.0/24 answers, even beside a listing code', async () => {
    expect(await queryDnsbl(resolver, '192.0.2.20', 'bl.test')).toEqual({
      zone: 'bl.test',
      status: 'refused',
      codes: ['127.255.255.254'],
      reason: null,
    });
    expect((await queryDnsbl(resolver, '192.0.2.21', 'bl.test')).status).toBe('refused');
  });

  it('reports an error for answers outside 127/8 (a broken or hijacking resolver)', async () => {
    expect(await queryDnsbl(resolver, '192.0.2.30', 'bl.test')).toEqual({
      zone: 'bl.test',
      status: 'error',
      codes: ['192.0.2.1'],
      reason: null,
    });
  });

  it('reports an error when the zone cannot be asked (SERVFAIL, timeout)', async () => {
    const error = { status: 'error', codes: [], reason: null };
    expect(await queryDnsbl(resolver, '127.0.0.2', 'broken-bl.test')).toEqual({ zone: 'broken-bl.test', ...error });
    expect(await queryDnsbl(resolver, '127.0.0.2', 'silent-bl.test.')).toEqual({ zone: 'silent-bl.test.', ...error });
  });
});
