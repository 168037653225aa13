import { randomInt } from 'node:crypto';
import { isIP } from 'node:net';
import type { Connector } from '@mailguard/smtp';

const TYPE = { A: 1, TXT: 16, AAAA: 28 } as const;

/** One question, recursion desired (RFC 1035 §4.1), framed for TCP (§4.2.2). */
function query(id: number, name: string, type: number): Buffer {
  const labels = name.split('.').filter(Boolean);
  const question = Buffer.concat([
    ...labels.map((label) => Buffer.concat([Buffer.from([label.length]), Buffer.from(label, 'ascii')])),
    Buffer.from([0, type >> 8, type & 0xff, 0, 1]),
  ]);
  const header = Buffer.from([id >> 8, id & 0xff, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0]);
  const message = Buffer.concat([header, question]);
  const length = Buffer.from([message.length >> 8, message.length & 0xff]);
  return Buffer.concat([length, message]);
}

/** Where a (possibly compressed) name ends. */
function skipName(message: Buffer, offset: number): number {
  for (;;) {
    const length = message[offset];
    if (length === undefined) throw new Error('truncated DNS answer');
    if ((length & 0xc0) === 0xc0) return offset + 2;
    if (length === 0) return offset + 1;
    offset += length + 1;
  }
}

/** The addresses an answer gives: A and AAAA records, and TXT strings that are addresses. */
function addressesOf(message: Buffer, id: number): string[] {
  if (message.readUInt16BE(0) !== id) throw new Error('a DNS answer to another question');
  const rcode = message[3] & 0x0f;
  if (rcode !== 0) throw new Error(`DNS answered rcode ${rcode}`);
  const answers = message.readUInt16BE(6);
  let offset = skipName(message, 12) + 4;
  const found: string[] = [];
  for (let index = 0; index < answers; index++) {
    offset = skipName(message, offset);
    const type = message.readUInt16BE(offset);
    const length = message.readUInt16BE(offset + 8);
    const data = message.subarray(offset + 10, offset + 10 + length);
    offset += 10 + length;
    if (type === TYPE.A && length === 4) found.push([...data].join('.'));
    if (type === TYPE.AAAA && length === 16)
      found.push(Array.from({ length: 8 }, (_, group) => data.readUInt16BE(group * 2).toString(16)).join(':'));
    if (type === TYPE.TXT)
      for (let at = 0; at < data.length; at += data[at] + 1) {
        const text = data.subarray(at + 1, at + 1 + data[at]).toString('ascii');
        if (isIP(text)) found.push(text);
      }
  }
  return found;
}

/**
 * Asks `name` of a DNS server over TCP, through the egress's own connector (a SOCKS5 proxy
 * carries it as it carries SMTP): the server answers with the address it sees the question come
 * from, which is the egress's public address (`myip.opendns.com` at OpenDNS's resolvers).
 */
export async function askPublicAddress(
  connector: Connector,
  server: string,
  port: number,
  name: string,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<string> {
  const socket = await connector(server, port, timeoutMs, signal);
  try {
    for (const type of [TYPE.A, TYPE.TXT]) {
      const id = randomInt(0, 0x10000);
      const answer = await new Promise<Buffer>((resolve, reject) => {
        let buffer = Buffer.alloc(0);
        const timer = setTimeout(() => done(new Error(`no DNS answer within ${timeoutMs} ms`)), timeoutMs);
        const onAbort = () => done(new Error('aborted'));
        const onData = (chunk: Buffer) => {
          buffer = Buffer.concat([buffer, chunk]);
          if (buffer.length >= 2 && buffer.length >= 2 + buffer.readUInt16BE(0))
            done(null, buffer.subarray(2, 2 + buffer.readUInt16BE(0)));
        };
        const onClose = () => done(new Error('the DNS server closed the connection'));
        const done = (error: Error | null, message?: Buffer) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          socket.off('data', onData);
          socket.off('close', onClose);
          socket.off('error', onClose);
          if (error) reject(error);
          else resolve(message as Buffer);
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        socket.on('data', onData);
        socket.once('close', onClose);
        socket.once('error', onClose);
        socket.write(query(id, name, type));
      });
      const [address] = addressesOf(answer, id);
      if (address) return address;
    }
    throw new Error(`${name} gave no address`);
  } finally {
    socket.destroy();
  }
}
