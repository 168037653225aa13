import { randomUUID } from 'node:crypto';
import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls, type TLSSocket } from 'node:tls';
import type { MailRelayConfig } from '@mailguard/config';

/**
 * The service's own mail (password resets, invitations), sent through the configured relay with a
 * small SMTP client: EHLO, STARTTLS when offered on `smtp://`, AUTH PLAIN, MAIL, RCPT, DATA, QUIT.
 *
 * Nothing from a request reaches the socket unchecked: addresses and header values with CR, LF or
 * other control characters are refused, the body's lines are CRLF-normalised and dot-stuffed.
 */
export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
}

export class MailError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MailError';
  }
}

const TIMEOUT_MS = 15_000;
const ADDRESS = /^[^\s<>()\x00-\x1f\x7f"]+@[A-Za-z0-9.-]+$/;

function assertHeaderSafe(name: string, value: string): void {
  if (/[\x00-\x1f\x7f]/.test(value)) throw new MailError(`${name} holds a control character`);
}

/** The message as sent after DATA: headers, a blank line, the body dot-stuffed, the final dot. */
export function formatMessage(from: string, mail: OutgoingMail, date = new Date()): string {
  for (const address of [from, mail.to]) {
    if (!ADDRESS.test(address)) throw new MailError('not a plain address');
  }
  assertHeaderSafe('subject', mail.subject);
  // Non-ASCII subjects as an RFC 2047 encoded word.
  const subject = /^[\x20-\x7e]*$/.test(mail.subject)
    ? mail.subject
    : `=?UTF-8?B?${Buffer.from(mail.subject, 'utf8').toString('base64')}?=`;
  const domain = from.slice(from.indexOf('@') + 1);
  const headers = [
    `From: ${from}`,
    `To: ${mail.to}`,
    `Subject: ${subject}`,
    `Date: ${date.toUTCString().replace('GMT', '+0000')}`,
    `Message-ID: <${randomUUID()}@${domain}>`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: 8bit',
  ];
  const body = mail.text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => (line.startsWith('.') ? `.${line}` : line));
  return `${[...headers, '', ...body].join('\r\n')}\r\n.\r\n`;
}

/** One connection to the relay: reads replies (multi-line aware), writes commands. */
class Conversation {
  private buffer = '';
  private waiting: ((reply: { code: number; text: string } | Error) => void) | null = null;
  private failure: Error | null = null;
  private lines: string[] = [];

  constructor(
    public socket: Socket | TLSSocket,
    private readonly helo: string,
  ) {
    this.attach(socket);
  }

  attach(socket: Socket | TLSSocket): void {
    this.socket = socket;
    socket.setTimeout(TIMEOUT_MS, () => this.fail(new MailError('the mail relay stopped answering')));
    socket.on('data', (chunk: Buffer) => this.receive(chunk.toString('latin1')));
    socket.on('error', (error: Error) => this.fail(new MailError(`mail relay connection: ${error.message}`)));
    socket.on('close', () => this.fail(new MailError('the mail relay closed the connection')));
  }

  private fail(error: Error): void {
    this.failure ??= error;
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.(error);
  }

  private receive(text: string): void {
    this.buffer += text;
    if (this.buffer.length > 64 * 1024) return this.fail(new MailError('the mail relay sent an over-long reply'));
    let end: number;
    while ((end = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, end).replace(/\r$/, '');
      this.buffer = this.buffer.slice(end + 1);
      this.lines.push(line);
      if (/^\d{3}(?: |$)/.test(line)) {
        const reply = { code: Number(line.slice(0, 3)), text: this.lines.join('\n') };
        this.lines = [];
        const waiting = this.waiting;
        this.waiting = null;
        waiting?.(reply);
      }
    }
  }

  /** The next reply; its code must be `expected`. */
  reply(expected: number, what: string): Promise<string> {
    return new Promise((resolve, reject) => {
      if (this.failure) return reject(this.failure);
      this.waiting = (reply) => {
        if (reply instanceof Error) return reject(reply);
        if (reply.code !== expected)
          return reject(new MailError(`${what}: the relay answered ${reply.text.slice(0, 200)}`));
        resolve(reply.text);
      };
    });
  }

  async command(line: string, expected: number, what = line.split(' ')[0]): Promise<string> {
    if (/[\r\n]/.test(line)) throw new MailError('a command may not hold CR or LF');
    this.socket.write(`${line}\r\n`);
    return this.reply(expected, what);
  }

  async ehlo(): Promise<string[]> {
    const text = await this.command(`EHLO ${this.helo}`, 250);
    return text.split('\n').map((line) => line.slice(4).toUpperCase());
  }
}

function opened(socket: Socket | TLSSocket, event: 'connect' | 'secureConnect'): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new MailError('the mail relay did not answer in time'));
    }, TIMEOUT_MS);
    socket.once(event, () => {
      clearTimeout(timer);
      socket.off('error', onError);
      resolve();
    });
    const onError = (error: Error) => {
      clearTimeout(timer);
      reject(new MailError(`mail relay connection: ${error.message}`));
    };
    socket.once('error', onError);
  });
}

/** Sends one message through the relay; throws MailError when the relay does not take it. */
export async function sendMail(relay: MailRelayConfig, mail: OutgoingMail): Promise<void> {
  const message = formatMessage(relay.from, mail);
  const helo = relay.from.slice(relay.from.indexOf('@') + 1) || 'localhost';
  let socket: Socket | TLSSocket = relay.secure
    ? connectTls({ host: relay.host, port: relay.port, servername: relay.host })
    : connectTcp({ host: relay.host, port: relay.port });
  try {
    await opened(socket, relay.secure ? 'secureConnect' : 'connect');
    const talk = new Conversation(socket, helo);
    await talk.reply(220, 'greeting');
    let extensions = await talk.ehlo();
    if (!relay.secure && extensions.includes('STARTTLS')) {
      await talk.command('STARTTLS', 220);
      socket.removeAllListeners('data');
      socket.removeAllListeners('close');
      socket.removeAllListeners('error');
      socket.setTimeout(0);
      const upgraded = connectTls({ socket, servername: relay.host });
      await opened(upgraded, 'secureConnect');
      socket = upgraded;
      talk.attach(upgraded);
      extensions = await talk.ehlo();
    }
    if (relay.user !== null) {
      if (!relay.secure && !(socket as TLSSocket).encrypted)
        throw new MailError('the relay offers no TLS: the password is not sent in clear');
      const credentials = Buffer.from(`\0${relay.user}\0${relay.password ?? ''}`, 'utf8').toString('base64');
      await talk.command(`AUTH PLAIN ${credentials}`, 235, 'AUTH');
    }
    await talk.command(`MAIL FROM:<${relay.from}>`, 250);
    await talk.command(`RCPT TO:<${mail.to}>`, 250);
    await talk.command('DATA', 354);
    socket.write(message);
    await talk.reply(250, 'message');
    await talk.command('QUIT', 221).catch(() => undefined);
  } finally {
    socket.destroy();
  }
}
