import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { isIPv4, type Socket } from 'node:net';
import * as packet from 'dns-packet';
import type { Answer, Packet, Question } from 'dns-packet';
import { canonicalName } from './scenario';
import { TcpListener } from './tcp-listener';
import type { World } from './world';

const TTL = 300;
const RCODE = { NOERROR: 0, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4 } as const;

interface Resolution {
  rcode: number;
  answers: Answer[];
  /** Never answer (the query times out at the client). */
  drop?: boolean;
  delayMs: number;
}

/** Splits a TXT value into the 255-octet character strings DNS carries. */
function txtStrings(value: string): Buffer[] {
  const bytes = Buffer.from(value, 'utf8');
  const chunks: Buffer[] = [];
  for (let offset = 0; offset < bytes.length || chunks.length === 0; offset += 255)
    chunks.push(bytes.subarray(offset, offset + 255));
  return chunks;
}

/** A whoami name's answer: the client's address as A or AAAA (by its family) and as TXT; TTL 0, as it differs per client. */
function whoami(name: string, type: string, client: string): Answer[] {
  if (type === 'TXT') return [{ type: 'TXT', name, ttl: 0, data: txtStrings(client) }];
  const family = isIPv4(client) ? 'A' : 'AAAA';
  return type === family ? [{ type: family, name, ttl: 0, data: client }] : [];
}

/**
 * An authoritative-and-recursive-looking DNS server for the lab: it answers every name from the
 * scenario, NXDOMAIN for the rest, and misbehaves (SERVFAIL, silence, delay) where told to.
 */
export class LabDnsServer {
  private udp: UdpSocket | null = null;
  private readonly tcp = new TcpListener((socket) => this.serveTcp(socket));
  queries = 0;
  /** A answers given so far per rebinding name: which of its addresses comes next. */
  private readonly rebinds = new Map<string, number>();

  constructor(
    private readonly world: World,
    readonly host: string,
    readonly port: number,
  ) {}

  /** `client` is the address the query came from, which whoami names answer with. */
  resolve(question: Question, client: string): Resolution {
    const name = canonicalName(question.name);
    const zone = this.world.zoneOf(name);
    const delayMs = zone?.dnsDelayMs ?? 0;
    if (zone?.dns === 'timeout') return { rcode: RCODE.NOERROR, answers: [], drop: true, delayMs };
    if (zone?.dns === 'servfail') return { rcode: RCODE.SERVFAIL, answers: [], delayMs };
    if (this.world.isWhoami(name))
      return { rcode: RCODE.NOERROR, answers: whoami(name, question.type, client), delayMs };
    const answers: Answer[] = [];
    let current = name;
    // Follow CNAME chains the way a recursive resolver would, at most 8 deep.
    for (let hops = 0; hops < 8; hops++) {
      const records = this.world.recordsOf(current);
      if (!records) {
        const rcode = answers.length > 0 || this.world.nameExists(current) ? RCODE.NOERROR : RCODE.NXDOMAIN;
        return { rcode, answers, delayMs };
      }
      if (records.cname && question.type !== 'CNAME') {
        answers.push({ type: 'CNAME', name: current, ttl: TTL, data: records.cname });
        current = records.cname;
        continue;
      }
      answers.push(...this.recordsOfType(current, question.type));
      return { rcode: RCODE.NOERROR, answers, delayMs };
    }
    return { rcode: RCODE.SERVFAIL, answers: [], delayMs };
  }

  private recordsOfType(name: string, type: string): Answer[] {
    const records = this.world.recordsOf(name) ?? {};
    switch (type) {
      case 'A':
        if (records.rebind) return [{ type: 'A', name, ttl: 0, data: this.rebound(name, records.rebind) }];
        return (records.a ?? []).map((data) => ({ type: 'A', name, ttl: TTL, data }));
      case 'AAAA':
        return (records.aaaa ?? []).map((data) => ({ type: 'AAAA', name, ttl: TTL, data }));
      case 'MX':
        return (records.mx ?? []).map(({ host, priority }) => ({
          type: 'MX',
          name,
          ttl: TTL,
          data: { preference: priority, exchange: host },
        }));
      case 'TXT':
        return (records.txt ?? []).map((value) => ({ type: 'TXT', name, ttl: TTL, data: txtStrings(value) }));
      case 'NS':
        return (records.ns ?? []).map((data) => ({ type: 'NS', name, ttl: TTL, data }));
      case 'CNAME':
        return records.cname ? [{ type: 'CNAME', name, ttl: TTL, data: records.cname }] : [];
      case 'PTR':
        return (records.ptr ?? []).map((data) => ({ type: 'PTR', name, ttl: TTL, data }));
      default:
        return [];
    }
  }

  private rebound(name: string, addresses: string[]): string {
    const answered = this.rebinds.get(name) ?? 0;
    this.rebinds.set(name, answered + 1);
    return addresses[answered % addresses.length];
  }

  /** How many A answers a rebinding name has given. */
  rebindAnswers(name: string): number {
    return this.rebinds.get(canonicalName(name)) ?? 0;
  }

  /** Builds the response packet; null when the query is to be ignored. */
  private async answer(query: Packet, client: string, maxSize: number): Promise<Buffer | null> {
    this.queries++;
    const question = query.questions?.[0];
    const base = {
      type: 'response' as const,
      id: query.id,
      flags: packet.AUTHORITATIVE_ANSWER | packet.RECURSION_AVAILABLE | ((query.flags ?? 0) & packet.RECURSION_DESIRED),
      questions: query.questions,
    };
    if (!question) return packet.encode({ ...base, flags: base.flags | RCODE.NOTIMP });
    const resolution = this.resolve(question, client);
    if (resolution.delayMs > 0) await new Promise((done) => setTimeout(done, resolution.delayMs));
    if (resolution.drop) return null;
    const response = packet.encode({ ...base, flags: base.flags | resolution.rcode, answers: resolution.answers });
    if (response.length <= maxSize) return response;
    return packet.encode({ ...base, flags: base.flags | resolution.rcode | packet.TRUNCATED_RESPONSE, answers: [] });
  }

  async start(): Promise<void> {
    const udp = createSocket('udp4');
    udp.on('message', (message, remote) => {
      let query: Packet;
      try {
        query = packet.decode(message);
      } catch {
        return;
      }
      const opt = query.additionals?.find((record) => record.type === 'OPT') as { udpPayloadSize?: number } | undefined;
      void this.answer(query, remote.address, Math.max(512, opt?.udpPayloadSize ?? 512)).then((response) => {
        if (response && this.udp) udp.send(response, remote.port, remote.address);
      });
    });
    await new Promise<void>((resolve, reject) => {
      udp.once('error', reject);
      udp.bind(this.port, this.host, () => resolve());
    });
    this.udp = udp;

    await this.tcp.listen(this.port, this.host);
  }

  /** DNS over TCP: two-octet length before every message (RFC 1035 §4.2.2). */
  private serveTcp(socket: Socket): void {
    socket.on('error', () => socket.destroy());
    let buffer = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      while (buffer.length >= 2 && buffer.length >= 2 + buffer.readUInt16BE(0)) {
        const length = buffer.readUInt16BE(0);
        const message = buffer.subarray(2, 2 + length);
        buffer = buffer.subarray(2 + length);
        let query: Packet;
        try {
          query = packet.decode(message);
        } catch {
          socket.destroy();
          return;
        }
        void this.answer(query, socket.remoteAddress ?? '', 65_535).then((response) => {
          if (!response || socket.destroyed) return;
          const framed = Buffer.alloc(2 + response.length);
          framed.writeUInt16BE(response.length, 0);
          response.copy(framed, 2);
          socket.write(framed);
        });
      }
    });
  }

  async stop(): Promise<void> {
    await Promise.all([
      new Promise<void>((resolve) => (this.udp ? this.udp.close(() => resolve()) : resolve())),
      this.tcp.close(),
    ]);
    this.udp = null;
  }
}
