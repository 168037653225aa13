import { Resolver } from 'node:dns/promises';
import { createSocket } from 'node:dgram';
import { connect } from 'node:net';
import * as packet from 'dns-packet';
import { startLab, type Lab } from './lab';
import { canonicalName, loadScenario } from './scenario';
import { queryOverTcp } from './testing/dns-query';

let lab: Lab;
let resolver: Resolver;
/** MX answers as records ({exchange, priority}): Node 24 adds a `type` field that Node 20 does not. */
const mx = async (name: string) =>
  (await resolver.resolveMx(name)).map(({ exchange, priority }) => ({ exchange, priority }));

/** Source addresses the tests ask from, as the prober's egresses would: any 127/8 address binds on loopback. */
const EGRESS = '127.250.0.2';
const OTHER_EGRESS = '127.250.0.3';

beforeAll(async () => {
  const scenario = loadScenario();
  scenario.ptr = { [EGRESS]: 'egress.mailguard.test', '2001:db8::25': ['mx1.acme.test', 'mail.acme.test'] };
  scenario.whoami = ['myip.lab.test'];
  scenario.domains!['egress.mailguard.test'] = { a: [EGRESS] };
  scenario.domains!['zen.lab.test'] = {
    records: { '2.0.250.127': { a: ['127.0.0.2'], txt: ['Listed: see https://lab.test/query/127.250.0.2'] } },
  };
  // Spamhaus's answer to a query that came through a public resolver: every name is "refused".
  scenario.domains!['refusing.lab.test'] = {
    records: { '*': { a: ['127.255.255.254'] }, 'own.name': { txt: ['not the wildcard'] } },
  };
  lab = await startLab(scenario);
  resolver = new Resolver({ timeout: 1_000, tries: 1 });
  resolver.setServers([lab.dnsServer]);
});

afterAll(() => lab.stop());

/** One raw query over UDP, without a resolver's own timers and retries. */
function udpQuery(name: string, type: 'MX' | 'A'): Promise<packet.Packet> {
  const [host, port] = lab.dnsServer.split(':');
  const socket = createSocket('udp4');
  return new Promise((resolve, reject) => {
    socket.once('message', (message) => {
      socket.close();
      resolve(packet.decode(message));
    });
    socket.once('error', reject);
    socket.send(
      packet.encode({ type: 'query', id: 9, flags: packet.RECURSION_DESIRED, questions: [{ type, name }] }),
      Number(port),
      host,
    );
  });
}

async function failureCode(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code;
  }
}

describe('record types', () => {
  it('answers MX with priorities, and A for the exchanges at their lab addresses', async () => {
    expect(await mx('failover.test')).toEqual(
      expect.arrayContaining([
        { exchange: 'mx-primary.failover.test', priority: 10 },
        { exchange: 'mx-backup.failover.test', priority: 20 },
      ]),
    );
    expect(await resolver.resolve4('mx1.acme.test')).toEqual([lab.ipOf('mx1.acme.test')]);
  });

  it('answers AAAA, NS and TXT (long values split into 255-octet strings)', async () => {
    expect(await resolver.resolve6('acme.test')).toEqual(['2001:db8::25']);
    expect((await resolver.resolveNs('acme.test')).sort()).toEqual(['ns1.acme.test', 'ns2.acme.test']);
    expect(await resolver.resolveTxt('acme.test')).toEqual([['v=spf1 mx -all'], ['google-site-verification=abc123']]);
    expect(await resolver.resolveTxt('_dmarc.acme.test')).toEqual([['v=DMARC1; p=reject; rua=mailto:dmarc@acme.test']]);
    const [long] = await resolver.resolveTxt('long._domainkey.acme.test');
    expect(long.length).toBe(2);
    expect(long[0].length).toBe(255);
    expect(long.join('')).toMatch(/^v=DKIM1; k=rsa; p=.*IDAQAB$/);
  });

  it('answers CNAME, and follows chains for other types', async () => {
    expect(await resolver.resolveCname('chain.acme.test')).toEqual(['www.acme.test']);
    expect(await mx('chain.acme.test')).toEqual([{ exchange: 'mx1.acme.test', priority: 10 }]);
  });

  it('is case-insensitive and serves internationalised names by their A-label', async () => {
    expect(await mx('ACME.Test')).toEqual([{ exchange: 'mx1.acme.test', priority: 10 }]);
  });
});

describe('DNS-only cases', () => {
  it('publishes a null MX', async () => {
    expect(await mx('nullmx.test')).toEqual([{ exchange: '', priority: 0 }]);
  });

  it('has an implicit-MX domain: no MX, an A record at a lab mail server', async () => {
    expect(await failureCode(resolver.resolveMx('implicit.test'))).toBe('ENODATA');
    expect(await resolver.resolve4('implicit.test')).toEqual([lab.ipOf('mx.implicit.test')]);
  });

  it('has a domain with neither MX nor A (NODATA, not NXDOMAIN)', async () => {
    expect(await failureCode(resolver.resolveMx('nomail.test'))).toBe('ENODATA');
    expect(await failureCode(resolver.resolve4('nomail.test'))).toBe('ENODATA');
    expect(await failureCode(resolver.resolve6('nomail.test'))).toBe('ENODATA');
  });

  it('answers NXDOMAIN for names that do not exist', async () => {
    expect(await failureCode(resolver.resolveMx('no-such-domain.test'))).toBe('ENOTFOUND');
    expect(await failureCode(resolver.resolve4('nothing.acme.test'))).toBe('ENOTFOUND');
  });

  it('has an MX whose host does not resolve, and one whose host is dead', async () => {
    expect(await mx('dangling.test')).toEqual([{ exchange: 'ghost.dangling.test', priority: 10 }]);
    expect(await failureCode(resolver.resolve4('ghost.dangling.test'))).toBe('ENOTFOUND');
    expect(await resolver.resolve4('mx.dead.test')).toEqual([lab.ipOf('mx.dead.test')]);
  });
});

describe('misbehaving DNS', () => {
  it('answers SERVFAIL for a broken zone', async () => {
    expect(await failureCode(resolver.resolveMx('servfail.test'))).toBe('ESERVFAIL');
    expect(await failureCode(resolver.resolve4('www.servfail.test'))).toBe('ESERVFAIL');
  });

  it('never answers for a silent zone, so the client times out', async () => {
    const impatient = new Resolver({ timeout: 200, tries: 1 });
    impatient.setServers([lab.dnsServer]);
    expect(await failureCode(impatient.resolveMx('timeout.test'))).toBe('ETIMEOUT');
  });

  it('rebinds: successive A queries get the next address in turn, with TTL 0', async () => {
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push((await udpQuery('rebind.test', 'A')).answers?.[0]);
    expect(answers).toEqual([
      expect.objectContaining({ type: 'A', ttl: 0, data: '203.0.113.10' }),
      expect.objectContaining({ type: 'A', ttl: 0, data: '127.0.0.1' }),
      expect.objectContaining({ type: 'A', ttl: 0, data: '203.0.113.10' }),
    ]);
    expect(lab.dns.rebindAnswers('rebind.test')).toBe(3);
  });

  it('answers slowly where told to, and the answer is still right', async () => {
    const started = Date.now();
    const response = await udpQuery('slowdns.test', 'MX');
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(response.answers).toEqual([
      expect.objectContaining({ type: 'MX', data: { preference: 10, exchange: 'mx1.acme.test' } }),
    ]);
  });
});

/** One query over a TCP connection of its own, from `localAddress` when given. */
function tcpQuery(question: packet.Question, localAddress?: string): Promise<packet.Packet> {
  return queryOverTcp(connect({ host: lab.dns.host, port: lab.dns.port, localAddress }), question);
}

describe('transport', () => {
  it('answers over TCP too', async () => {
    const response = await tcpQuery({ type: 'MX', name: 'acme.test' });
    expect(response.id).toBe(7);
    expect(response.answers).toEqual([
      expect.objectContaining({ type: 'MX', data: { preference: 10, exchange: 'mx1.acme.test' } }),
    ]);
  });
});

describe("the prober's self-check", () => {
  it('answers PTR for scenario addresses, v4 in in-addr.arpa and v6 in nibbles under ip6.arpa', async () => {
    expect(await resolver.reverse(EGRESS)).toEqual(['egress.mailguard.test']);
    expect((await resolver.reverse('2001:db8::25')).sort()).toEqual(['mail.acme.test', 'mx1.acme.test']);
  });

  it('answers NXDOMAIN for the reverse name of any other address', async () => {
    expect(await failureCode(resolver.reverse(OTHER_EGRESS))).toBe('ENOTFOUND');
    expect(await failureCode(resolver.reverse('2001:db8::26'))).toBe('ENOTFOUND');
  });

  it('resolves a PTR name back to its address (forward-confirmed reverse DNS)', async () => {
    const [name] = await resolver.reverse(EGRESS);
    expect(await resolver.resolve4(name)).toEqual([EGRESS]);
  });

  it('answers a whoami name over UDP with the address the query came from, as A and TXT', async () => {
    const egress = new Resolver({ timeout: 1_000, tries: 1 });
    egress.setServers([lab.dnsServer]);
    egress.setLocalAddress(EGRESS);
    expect(await egress.resolve4('myip.lab.test')).toEqual([EGRESS]);
    expect(await egress.resolveTxt('myip.lab.test')).toEqual([[EGRESS]]);
    expect(await failureCode(egress.resolve6('myip.lab.test'))).toBe('ENODATA');
  });

  it("answers a whoami name over TCP with the connection's source address", async () => {
    const [mine, other] = await Promise.all([
      tcpQuery({ type: 'A', name: 'myip.lab.test' }, EGRESS),
      tcpQuery({ type: 'TXT', name: 'MyIP.lab.test' }, OTHER_EGRESS),
    ]);
    expect(mine.answers).toEqual([expect.objectContaining({ type: 'A', ttl: 0, data: EGRESS })]);
    expect(other.answers).toEqual([expect.objectContaining({ type: 'TXT', data: [Buffer.from(OTHER_EGRESS)] })]);
  });

  it('answers a DNSBL listing of a reversed address with A 127.0.0.2 and TXT; unlisted addresses are NXDOMAIN', async () => {
    expect(await resolver.resolve4('2.0.250.127.zen.lab.test')).toEqual(['127.0.0.2']);
    expect(await resolver.resolveTxt('2.0.250.127.zen.lab.test')).toEqual([
      ['Listed: see https://lab.test/query/127.250.0.2'],
    ]);
    expect(await failureCode(resolver.resolve4('3.0.250.127.zen.lab.test'))).toBe('ENOTFOUND');
  });

  it('keeps names of digits as written: `0.250.127` is a name, not the IPv4 address 0.250.0.127', () => {
    expect(canonicalName('0.250.127')).toBe('0.250.127');
    expect(canonicalName('010.0.0.1')).toBe('010.0.0.1');
  });

  it('answers every name below a domain from its "*" record, unless the name has records of its own', async () => {
    expect(await resolver.resolve4('2.0.250.127.refusing.lab.test')).toEqual(['127.255.255.254']);
    expect(await resolver.resolve4('x.refusing.lab.test')).toEqual(['127.255.255.254']);
    expect(await resolver.resolveTxt('own.name.refusing.lab.test')).toEqual([['not the wildcard']]);
    expect(await failureCode(resolver.resolve4('own.name.refusing.lab.test'))).toBe('ENODATA');
    expect(await failureCode(resolver.resolve4('refusing.lab.test'))).toBe('ENODATA');
  });
});
