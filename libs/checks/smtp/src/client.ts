import { isIP, connect as netConnect, type Socket } from 'node:net';
import { createSecureContext, connect as tlsConnect, type TLSSocket } from 'node:tls';
import { SocksClient } from 'socks';
import { ReplyParser, type SmtpReply } from './reply';
import type { TlsSessionCache } from './tls-sessions';

/** Why a session could not go on. Any of these ends the session: it is never reused after one. */
export class SmtpError extends Error {
  constructor(
    readonly kind: 'connect' | 'connect_timeout' | 'timeout' | 'closed' | 'tls' | 'protocol' | 'aborted',
    message: string,
  ) {
    super(message);
    this.name = 'SmtpError';
  }
}

/** Opens the TCP connection to an MX address: directly, or through a SOCKS5 proxy. */
export type Connector = (address: string, port: number, timeoutMs: number, signal?: AbortSignal) => Promise<Socket>;

/** Straight to the MX, from `localAddress` when given (a `local:<ip>` egress), else the host's default route. */
export function localConnector(localAddress: string | null): Connector {
  return (address, port, timeoutMs, signal) => connectDirectly(address, port, timeoutMs, signal, localAddress);
}

export const directConnector: Connector = localConnector(null);

function connectDirectly(
  address: string,
  port: number,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  localAddress: string | null,
): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = netConnect({ host: address, port, ...(localAddress ? { localAddress } : {}) });
    const fail = (error: SmtpError) => {
      socket.destroy();
      reject(error);
    };
    const timer = setTimeout(
      // No connection at all (a port 25 filter drops it): unreachable, as a refusal is, but not worth the host's next address.
      () => fail(new SmtpError('connect_timeout', `connect to ${address}:${port} timed out`)),
      timeoutMs,
    );
    const onAbort = () => fail(new SmtpError('aborted', 'check deadline reached'));
    signal?.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(socket);
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      fail(new SmtpError('connect', `connect to ${address}:${port} failed: ${error.message}`));
    });
  });
}

export interface SocksProxy {
  host: string;
  port: number;
  username: string | null;
  password: string | null;
}

export function socksConnector(proxy: SocksProxy): Connector {
  return async (address, port, timeoutMs) => {
    try {
      const { socket } = await SocksClient.createConnection({
        proxy: {
          host: proxy.host,
          port: proxy.port,
          type: 5,
          userId: proxy.username ?? undefined,
          password: proxy.password ?? undefined,
        },
        command: 'connect',
        destination: { host: address, port },
        timeout: timeoutMs,
      });
      return socket;
    } catch (error) {
      throw new SmtpError('connect', `SOCKS5 connect to ${address}:${port} failed: ${(error as Error).message}`);
    }
  };
}

export interface SessionOptions {
  /** Host name of the MX (for SNI) and the address to connect to. */
  host: string;
  address: string;
  port: number;
  timeoutMs: number;
  connector: Connector;
  signal?: AbortSignal;
  /** TLS sessions of hosts seen before, resumed by STARTTLS (by `host`); none: always a full handshake. */
  tlsSessions?: TlsSessionCache;
  /** The TCP connection is up. */
  onConnected?: () => void;
  /**
   * Called exactly once when the session's connection has ended, however it ended (QUIT, error,
   * timeout, abort, a TLS upgrade or a failed one), or when `open` fails before there is one.
   */
  onEnd?: () => void;
}

/** How long a server may take to close after QUIT before the connection is cut. */
const QUIT_GRACE_MS = 2_000;
/**
 * The longest wait for a kept session's first reply (to its RSET). Unanswered by then, the
 * connection was most likely forgotten on the way (a NAT or proxy drops idle ones without a word):
 * the probe goes on with a new session rather than wait the whole per-command timeout.
 */
const KEPT_SESSION_REPLY_MS = 3_000;

const UNSAFE = /[\r\n\0]/;
/**
 * One TLS context for every STARTTLS: without it each handshake builds its own (0.2–0.3 ms of CPU
 * here), though they all use the same defaults — no certificate of ours, none verified.
 */
const CLIENT_TLS = createSecureContext();

/**
 * A purpose-built SMTP client session for probing: it writes only commands it has checked for
 * CR/LF/NUL, reads whole (multi-line) replies with a timeout per command, and dies on any timeout
 * or protocol error rather than risk reading a late reply as the answer to the next command.
 */
export class SmtpSession {
  private socket: Socket | TLSSocket;
  private readonly parser = new ReplyParser();
  private readonly replies: SmtpReply[] = [];
  private waiter: { resolve: () => void } | null = null;
  private failure: SmtpError | null = null;
  private ended = false;
  private quitTimer: NodeJS.Timeout | null = null;
  private readonly onAbort = () => this.fail(new SmtpError('aborted', 'check deadline reached'));
  /** The deadline of the probe using the session now (none while it is parked between probes). */
  private signal: AbortSignal | undefined;
  /** Who hears, while the session is parked, that its connection ended. */
  private onEndParked: (() => void) | null = null;
  /** A shorter wait for the next reply only: the first after the session was kept open. */
  private nextReplyWithinMs: number | null = null;
  /** The TCP connection under any TLS: it alone keeps the process alive, or not. */
  private readonly tcp: Socket;
  extensions = new Map<string, string>();
  secure = false;
  /** Round trips spent waiting on the server (connect + banner counts as one). */
  roundTrips = 0;

  private constructor(
    socket: Socket,
    private readonly options: SessionOptions,
  ) {
    this.socket = socket;
    this.tcp = socket;
    this.attach(socket);
    // The TCP socket outlives a TLS upgrade: its close is the end of the session, whatever wraps it.
    socket.once('close', () => this.end());
    this.signal = options.signal;
    this.signal?.addEventListener('abort', this.onAbort, { once: true });
    options.onConnected?.();
  }

  /** Connects and reads the banner (returned; the session is closed when it is not 2xx). */
  static async open(options: SessionOptions): Promise<{ session: SmtpSession; banner: SmtpReply }> {
    let socket: Socket;
    try {
      if (options.signal?.aborted) throw new SmtpError('aborted', 'check deadline reached');
      // Only an address the prober resolved and checked: a name would be resolved again on connect.
      if (!isIP(options.address)) throw new SmtpError('connect', `${options.address} is not an IP address`);
      socket = await options.connector(options.address, options.port, options.timeoutMs, options.signal);
    } catch (error) {
      options.onEnd?.();
      throw error;
    }
    const session = new SmtpSession(socket, options);
    const banner = await session.read().catch((error: unknown) => {
      // Hung up before a word (how some hosts drop an address they refuse): no SMTP was spoken.
      if (error instanceof SmtpError && error.kind === 'closed')
        throw new SmtpError('connect', `${options.address} closed the connection before its greeting`);
      throw error;
    });
    if (banner.code >= 400) session.close();
    return { session, banner };
  }

  private readonly listeners = {
    data: (chunk: string) => {
      try {
        this.replies.push(...this.parser.push(chunk));
      } catch (error) {
        this.fail(new SmtpError('protocol', (error as Error).message));
        return;
      }
      this.wake();
    },
    error: (error: Error) => this.fail(new SmtpError('closed', `connection error: ${error.message}`)),
    close: () => this.fail(new SmtpError('closed', 'the server closed the connection')),
  };

  private attach(socket: Socket | TLSSocket): void {
    socket.setEncoding('utf8');
    socket.on('data', this.listeners.data);
    socket.on('error', this.listeners.error);
    socket.on('close', this.listeners.close);
  }

  /** Takes this session's own listeners off a socket, and no one else's. */
  private unattach(socket: Socket | TLSSocket): void {
    socket.off('data', this.listeners.data);
    socket.off('error', this.listeners.error);
    socket.off('close', this.listeners.close);
  }

  /** The connection is gone: the abort listener goes and the owner hears of it, once. */
  private end(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.quitTimer) clearTimeout(this.quitTimer);
    this.signal?.removeEventListener('abort', this.onAbort);
    this.options.onEnd?.();
    this.onEndParked?.();
    this.onEndParked = null;
  }

  /** Neither ended nor failed: it may take another command. */
  get usable(): boolean {
    return !this.ended && this.failure === null;
  }

  /**
   * Kept open between probes: no probe's deadline aborts it, its connection no longer keeps the
   * process alive, and `onEnd` hears if the server hangs up meanwhile.
   */
  park(onEnd: () => void): void {
    this.signal?.removeEventListener('abort', this.onAbort);
    this.signal = undefined;
    this.onEndParked = onEnd;
    this.tcp.unref();
  }

  /**
   * Back in use by a probe with its own deadline. False, and the session closed, when it cannot go
   * on: it ended, or the server said something unasked while it was parked (a reply read now would
   * be taken for the answer to the next command).
   */
  unpark(signal?: AbortSignal): boolean {
    this.onEndParked = null;
    if (!this.usable || this.replies.length > 0 || this.parser.partial || signal?.aborted) {
      this.close();
      return false;
    }
    this.tcp.ref();
    this.roundTrips = 0;
    this.nextReplyWithinMs = Math.min(this.options.timeoutMs, KEPT_SESSION_REPLY_MS);
    this.signal = signal;
    this.signal?.addEventListener('abort', this.onAbort, { once: true });
    return true;
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.resolve();
  }

  private fail(error: SmtpError): void {
    this.failure ??= error;
    this.socket.destroy();
    this.wake();
  }

  /** The next reply, or an SmtpError when none comes within the per-command timeout. */
  private async read(): Promise<SmtpReply> {
    if (this.replies.length === 0) this.roundTrips++;
    const timeoutMs = this.nextReplyWithinMs ?? this.options.timeoutMs;
    this.nextReplyWithinMs = null;
    // A monotonic clock: a wall-clock jump must not stretch or cut the per-command timeout.
    const deadline = performance.now() + timeoutMs;
    while (this.replies.length === 0) {
      if (this.failure) throw this.failure;
      const remaining = deadline - performance.now();
      if (remaining <= 0) {
        const timeout = new SmtpError('timeout', `no reply within ${timeoutMs} ms`);
        this.fail(timeout);
        throw timeout;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, remaining);
        this.waiter = {
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        };
      });
    }
    return this.replies.shift() as SmtpReply;
  }

  private write(commands: string[]): void {
    for (const command of commands) {
      // The last line of defence: nothing with a line break or NUL is ever written.
      if (UNSAFE.test(command)) throw new SmtpError('protocol', 'refusing to send a command containing CR, LF or NUL');
    }
    if (this.failure) throw this.failure;
    this.socket.write(commands.map((command) => `${command}\r\n`).join(''));
  }

  /** Sends commands in one write (pipelined when more than one) and reads one reply each. */
  async send(...commands: string[]): Promise<SmtpReply[]> {
    this.write(commands);
    const replies: SmtpReply[] = [];
    for (let i = 0; i < commands.length; i++) replies.push(await this.read());
    return replies;
  }

  async command(command: string): Promise<SmtpReply> {
    const [reply] = await this.send(command);
    return reply;
  }

  get pipelining(): boolean {
    return this.extensions.has('PIPELINING');
  }

  /** EHLO, falling back to HELO when EHLO is refused; records the extensions offered. */
  async hello(name: string): Promise<SmtpReply> {
    const ehlo = await this.command(`EHLO ${name}`);
    if (ehlo.code === 250) {
      this.extensions = new Map(
        ehlo.lines.slice(1).map((line) => {
          const [keyword, ...rest] = line.slice(4).trim().split(/\s+/);
          return [keyword.toUpperCase(), rest.join(' ')];
        }),
      );
      return ehlo;
    }
    if (ehlo.code >= 500 && ehlo.code < 600) {
      this.extensions = new Map();
      return this.command(`HELO ${name}`);
    }
    return ehlo;
  }

  /** STARTTLS and the TLS handshake (certificates not verified: RFC 7435 opportunistic TLS). */
  async startTls(): Promise<SmtpReply> {
    let reply: SmtpReply;
    try {
      reply = await this.command('STARTTLS');
    } catch (error) {
      // Garbage or a hang-up where the upgrade should start is a broken TLS stack: worth a plaintext retry.
      if (error instanceof SmtpError && (error.kind === 'protocol' || error.kind === 'closed'))
        throw new SmtpError('tls', `STARTTLS broke off: ${error.message}`);
      throw error;
    }
    if (reply.code !== 220) return reply;
    const plain = this.socket as Socket;
    this.unattach(plain);
    // Anything the server sent after its 220 in plaintext is discarded (STARTTLS injection).
    this.parser.reset();
    this.replies.length = 0;
    this.roundTrips++;
    const { host, tlsSessions } = this.options;
    const secure = await new Promise<TLSSocket>((resolve, reject) => {
      const socket = tlsConnect({
        socket: plain,
        servername: host,
        secureContext: CLIENT_TLS,
        rejectUnauthorized: false,
        session: tlsSessions?.get(host),
      });
      // TLS 1.3 sends its tickets after the handshake: the newest one is kept for the next session.
      socket.on('session', (session: Buffer) => tlsSessions?.set(host, session));
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new SmtpError('tls', 'TLS handshake timed out'));
      }, this.options.timeoutMs);
      socket.once('secureConnect', () => {
        clearTimeout(timer);
        resolve(socket);
      });
      socket.once('error', (error) => {
        clearTimeout(timer);
        socket.destroy();
        reject(new SmtpError('tls', `TLS handshake failed: ${error.message}`));
      });
    }).catch((error: SmtpError) => {
      // A ticket the host no longer takes must not break the next handshake too.
      tlsSessions?.delete(host);
      this.failure ??= error;
      plain.destroy();
      throw error;
    });
    this.socket = secure;
    secure.once('close', () => this.end());
    this.secure = true;
    this.extensions = new Map();
    this.attach(secure);
    return reply;
  }

  /** Says goodbye without waiting: the answer to QUIT changes nothing. */
  quit(): void {
    if (this.failure) return;
    try {
      this.write(['QUIT']);
    } catch {
      // Already failed: nothing to say goodbye to.
    }
    this.socket.end();
    // A server that never closes after QUIT must not keep the connection (and its slot) open.
    this.quitTimer ??= setTimeout(() => this.socket.destroy(), QUIT_GRACE_MS);
    this.quitTimer.unref();
  }

  close(): void {
    this.socket.destroy();
  }
}
