import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { TcpListener } from './tcp-listener';

/** One message the relay took: its envelope and the text after DATA (dot-unstuffed, CRLF line ends). */
export interface RelayedMessage {
  from: string;
  to: string[];
  /** The login used (AUTH PLAIN), or null. */
  user: string | null;
  data: string;
  headers: Record<string, string>;
  body: string;
}

const MAX_LINE = 8192;

function parse(data: string): { headers: Record<string, string>; body: string } {
  const split = data.indexOf('\r\n\r\n');
  const head = split < 0 ? data : data.slice(0, split);
  const headers: Record<string, string> = {};
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { headers, body: split < 0 ? '' : data.slice(split + 4) };
}

/**
 * The mail relay of the lab: the service's own mail (password resets, invitations) goes through it
 * (`MAIL_RELAY_URL`), and it keeps every message so tests can read the links. A plain SMTP server
 * (EHLO, AUTH PLAIN with any credentials, MAIL, RCPT, DATA, RSET, NOOP, QUIT); it also records protocol
 * faults (bare LF, over-long lines) a sender must never commit.
 */
export class LabMailRelay {
  readonly messages: RelayedMessage[] = [];
  readonly violations: string[] = [];
  private readonly events = new EventEmitter();
  private readonly listener = new TcpListener((socket) => this.session(socket));
  port = 0;

  constructor(readonly host: string) {}

  async start(port = 0): Promise<void> {
    await this.listener.listen(port, this.host);
    this.port = this.listener.port;
  }

  stop(): Promise<void> {
    this.events.removeAllListeners();
    return this.listener.close();
  }

  /** `MAIL_RELAY_URL` and `MAIL_FROM` for the service. */
  get env(): Record<string, string> {
    return { MAIL_RELAY_URL: `smtp://${this.host}:${this.port}`, MAIL_FROM: 'noreply@mailguard.test' };
  }

  /** The first message to `to` matching `match` that arrived or arrives, after `since` messages. */
  waitFor(to: string, since = 0, timeoutMs = 20_000): Promise<RelayedMessage> {
    const find = () => this.messages.slice(since).find((message) => message.to.includes(to.toLowerCase()));
    const found = find();
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.events.off('message', check);
        reject(new Error(`no mail to ${to} within ${timeoutMs} ms`));
      }, timeoutMs);
      const check = () => {
        const message = find();
        if (!message) return;
        clearTimeout(timer);
        this.events.off('message', check);
        resolve(message);
      };
      this.events.on('message', check);
    });
  }

  private session(socket: Socket): void {
    let buffer = Buffer.alloc(0);
    let from: string | null = null;
    let to: string[] = [];
    let user: string | null = null;
    let data: string[] | null = null;
    const reply = (line: string): void => {
      socket.write(`${line}\r\n`);
    };
    socket.setTimeout(30_000, () => socket.destroy());
    socket.on('error', () => socket.destroy());
    reply(`220 ${this.host} ESMTP lab relay`);

    const line = (text: string): void => {
      if (data) {
        if (text === '.') {
          const raw = data.join('\r\n');
          data = null;
          const message = { from: from ?? '', to, user, data: raw, ...parse(raw) };
          this.messages.push(message);
          from = null;
          to = [];
          reply('250 2.0.0 Ok: queued');
          this.events.emit('message');
          return;
        }
        data.push(text.startsWith('.') ? text.slice(1) : text);
        return;
      }
      const [verb, ...rest] = text.split(' ');
      const argument = rest.join(' ');
      switch (verb.toUpperCase()) {
        case 'EHLO':
          return reply(`250-${this.host}\r\n250-AUTH PLAIN\r\n250 8BITMIME`);
        case 'HELO':
          return reply(`250 ${this.host}`);
        case 'AUTH': {
          const [mechanism, initial] = argument.split(' ');
          if (mechanism?.toUpperCase() !== 'PLAIN' || !initial)
            return reply('504 5.5.4 Only AUTH PLAIN with a response');
          user = Buffer.from(initial, 'base64').toString('utf8').split('\0')[1] ?? null;
          return reply('235 2.7.0 Authentication successful');
        }
        case 'MAIL': {
          const address = /^FROM:<([^>]*)>/i.exec(argument);
          if (!address) return reply('501 5.5.4 Syntax: MAIL FROM:<address>');
          from = address[1];
          return reply('250 2.1.0 Ok');
        }
        case 'RCPT': {
          const address = /^TO:<([^>]+)>/i.exec(argument);
          if (!address || from === null) return reply('503 5.5.1 Need MAIL first, then RCPT TO:<address>');
          to.push(address[1].toLowerCase());
          return reply('250 2.1.5 Ok');
        }
        case 'DATA':
          if (to.length === 0) return reply('503 5.5.1 Need RCPT first');
          data = [];
          return reply('354 End data with <CR><LF>.<CR><LF>');
        case 'RSET':
          from = null;
          to = [];
          return reply('250 2.0.0 Ok');
        case 'NOOP':
          return reply('250 2.0.0 Ok');
        case 'QUIT':
          reply('221 2.0.0 Bye');
          socket.end();
          return;
        default:
          return reply('502 5.5.2 Command not recognized');
      }
    };

    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      let end: number;
      while ((end = buffer.indexOf(0x0a)) >= 0) {
        const raw = buffer.subarray(0, end);
        buffer = buffer.subarray(end + 1);
        if (raw[raw.length - 1] !== 0x0d) this.violations.push('bare LF');
        const text = raw.subarray(0, raw[raw.length - 1] === 0x0d ? -1 : undefined).toString('utf8');
        if (text.includes('\r')) this.violations.push('bare CR');
        line(text);
      }
      if (buffer.length > MAX_LINE) {
        this.violations.push('over-long line');
        socket.destroy();
      }
    });
  }
}
