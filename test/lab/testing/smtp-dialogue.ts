import { connect, type Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';

export interface Reply {
  code: number;
  lines: string[];
  /** The text of every line, without codes, joined by newlines. */
  text: string;
}

/**
 * A raw SMTP dialogue for the lab's own tests: writes exactly what it is given and parses
 * replies (multi-line included). Not the product's client: that lives in libs/.
 */
export class SmtpDialogue {
  private buffer = '';
  private readonly replies: Reply[] = [];
  private waiters: Array<() => void> = [];
  private ended = false;
  private socket: Socket | TLSSocket;

  private constructor(socket: Socket) {
    this.socket = socket;
    this.attach(socket);
  }

  /** `localAddress` binds the client to a source address: one of the prober's egresses, as servers see it. */
  static open(host: string, port: number, localAddress?: string): Promise<SmtpDialogue> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host, port, localAddress });
      socket.once('connect', () => resolve(new SmtpDialogue(socket)));
      socket.once('error', reject);
    });
  }

  /** A dialogue over a connection opened elsewhere: one through a proxy, say. */
  static over(socket: Socket): SmtpDialogue {
    return new SmtpDialogue(socket);
  }

  private attach(socket: Socket | TLSSocket): void {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.buffer += chunk;
      this.parse();
    });
    socket.on('close', () => {
      this.ended = true;
      this.wake();
    });
    socket.on('error', () => undefined);
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    waiters.forEach((wake) => wake());
  }

  private parse(): void {
    const lines: string[] = [];
    let offset = 0;
    let newline: number;
    while ((newline = this.buffer.indexOf('\r\n', offset)) >= 0) {
      const line = this.buffer.slice(offset, newline);
      offset = newline + 2;
      lines.push(line);
      if (line[3] !== '-') {
        this.replies.push({
          code: Number(line.slice(0, 3)),
          lines: [...lines],
          text: lines.map((l) => l.slice(4)).join('\n'),
        });
        lines.length = 0;
        this.buffer = this.buffer.slice(offset);
        offset = 0;
      }
    }
    this.wake();
  }

  /** The next complete reply; rejects when the server closes first. */
  async reply(): Promise<Reply> {
    while (this.replies.length === 0) {
      if (this.ended) throw new Error('connection closed before a reply');
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
    return this.replies.shift() as Reply;
  }

  /** What arrived after the last complete reply (a reply cut off mid-way), once there is some. */
  async partial(): Promise<string> {
    while (this.buffer === '') {
      if (this.ended) throw new Error('connection closed before anything arrived');
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
    return this.buffer;
  }

  /** Resolves when the server has closed the connection. */
  async closed(): Promise<void> {
    while (!this.ended) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  write(raw: string): void {
    this.socket.write(raw);
  }

  async command(line: string): Promise<Reply> {
    this.write(`${line}\r\n`);
    return this.reply();
  }

  /** Upgrades after a 220 to STARTTLS; certificates are not verified (opportunistic TLS). */
  startTls(): Promise<void> {
    const plain = this.socket as Socket;
    plain.removeAllListeners('data');
    plain.removeAllListeners('close');
    return new Promise((resolve, reject) => {
      const secure = tlsConnect({ socket: plain, rejectUnauthorized: false }, () => resolve());
      secure.once('error', reject);
      this.socket = secure;
      this.attach(secure);
    });
  }

  close(): void {
    this.socket.destroy();
  }
}
