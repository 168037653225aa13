import { Resolver } from 'node:dns/promises';
import { createSocket } from 'node:dgram';
import { connect } from 'node:net';
import * as packet from 'dns-packet';
import { startLab, type Lab } from './lab';
import { loadScenario } from './scenario';

let lab: Lab;
let resolver: Resolver;

beforeAll(async () => {
  lab = await startLab(loadScenario());
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
    expect(await resolver.resolveMx('failover.test')).toEqual(
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
    expect(await resolver.resolveMx('chain.acme.test')).toEqual([{ exchange: 'mx1.acme.test', priority: 10 }]);
  });

  it('is case-insensitive and serves internationalised names by their A-label', async () => {
    expect(await resolver.resolveMx('ACME.Test')).toEqual([{ exchange: 'mx1.acme.test', priority: 10 }]);
  });
});

describe('DNS-only cases', () => {
  it('publishes a null MX', async () => {
    expect(await resolver.resolveMx('nullmx.test')).toEqual([{ exchange: '', priority: 0 }]);
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
    expect(await resolver.resolveMx('dangling.test')).toEqual([{ exchange: 'ghost.dangling.test', priority: 10 }]);
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

describe('transport', () => {
  it('answers over TCP too', async () => {
    const [host, port] = lab.dnsServer.split(':');
    const response = await new Promise<packet.Packet>((resolve, reject) => {
      const socket = connect({ host, port: Number(port) }, () => {
        socket.write(
          packet.streamEncode({
            type: 'query',
            id: 7,
            flags: packet.RECURSION_DESIRED,
            questions: [{ type: 'MX', name: 'acme.test' }],
          }),
        );
      });
      let buffer = Buffer.alloc(0);
      socket.on('data', (chunk) => {
        buffer = Buffer.concat([buffer, chunk]);
        if (buffer.length >= 2 && buffer.length >= 2 + buffer.readUInt16BE(0)) {
          socket.destroy();
          resolve(packet.streamDecode(buffer));
        }
      });
      socket.on('error', reject);
    });
    expect(response.id).toBe(7);
    expect(response.answers).toEqual([
      expect.objectContaining({ type: 'MX', data: { preference: 10, exchange: 'mx1.acme.test' } }),
    ]);
  });
});
