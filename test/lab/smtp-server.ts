import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { createSecureContext, TLSSocket } from 'node:tls';
import { LAB_TLS_CERT, LAB_TLS_KEY } from './certs';
import type { ReplyName, ServerSpec, SmtpStep } from './scenario';
import { TcpListener } from './tcp-listener';
import type { LabServer, World } from './world';

/** Postfix-like texts; a scenario may replace any of them per server (real provider texts, say). */
const DEFAULT_REPLIES: Record<ReplyName, string> = {
  banner: '220 {host} ESMTP Postfix',
  accepted: '250 2.1.5 Ok',
  unknownUser: '550 5.1.1 <{addr}>: Recipient address rejected: User unknown in virtual mailbox table',
  full: '552 5.2.2 <{addr}>: Recipient address rejected: Mailbox full',
  fullTemporary: '452 4.2.2 <{addr}>: Recipient address rejected: Mailbox full, try again later',
  disabled: '550 5.2.1 <{addr}>: Recipient address rejected: Mailbox disabled, not accepting messages',
  greylisted:
    '450 4.2.0 <{addr}>: Recipient address rejected: Greylisted, see http://postgrey.schweikert.ch/help/{host}.html',
  blocked:
    '554 5.7.1 Service unavailable; Client host [{ip}] blocked using zen.spamhaus.org; https://www.spamhaus.org/query/ip/{ip}',
  tooManyRecipients: '452 4.5.3 Error: too many recipients',
  relayDenied: '554 5.7.1 <{addr}>: Relay access denied',
  tlsRequired: '530 5.7.0 Must issue a STARTTLS command first',
  tooManyConnections: '421 4.7.0 {host} Error: too many connections from {ip}',
  idleTimeout: '421 4.4.2 {host} Error: timeout exceeded',
  rset: '250 2.0.0 Ok',
  utf8Unsupported: '553 5.6.7 <{addr}>: Recipient address rejected: SMTPUTF8 is required but was not offered',
};

const MAX_LINE = 4096;
const IDLE_TIMEOUT_MS = 30_000;

export interface SmtpStats {
  /** Sessions accepted (the banner was due), including those closed with 421. */
  sessions: number;
  active: number;
  peakConcurrent: number;
  /** Sessions turned away with 421 because of `maxConnections`. */
  refused: number;
  tlsSessions: number;
  /** TLS sessions that resumed an earlier one (a ticket this server issued) instead of a full handshake. */
  tlsResumed: number;
  /** Reply batches written (the banner included): the round trips clients waited for. */
  replyBatches: number;
  /** Every command line received, as received (without its CRLF), in order. */
  commands: string[];
  /** Protocol faults seen from clients: bare CR or LF, NUL, over-long lines. */
  violations: string[];
  /** Sessions by client IP: which of the prober's egresses came, and how many at once. */
  byClient: Record<string, ClientStats>;
}

export interface ClientStats {
  sessions: number;
  active: number;
  peakConcurrent: number;
}

function emptyStats(): SmtpStats {
  return {
    sessions: 0,
    active: 0,
    peakConcurrent: 0,
    refused: 0,
    tlsSessions: 0,
    tlsResumed: 0,
    replyBatches: 0,
    commands: [],
    violations: [],
    byClient: {},
  };
}

/** Renders a reply template: `\n` separates lines, continuation lines get `code-`. */
function render(template: string, values: Record<string, string>): string {
  const text = template.replace(/\{(\w+)\}/g, (_, key: string) => values[key] ?? '');
  const lines = text.split('\n');
  const code = lines[0].slice(0, 3);
  return lines
    .map((line, index) => {
      const body = /^\d{3}[ -]/.test(line) ? line.slice(4) : line;
      return `${code}${index < lines.length - 1 ? '-' : ' '}${body}\r\n`;
    })
    .join('');
}

function addressOf(argument: string, verb: 'FROM' | 'TO'): string | null {
  const match = new RegExp(`^${verb}:\\s*<([^>]*)>(?:\\s.*)?$`, 'i').exec(argument);
  return match ? match[1] : null;
}

/** The commands a hostile server's `stallAt` and `dropAfter` name. */
const STEPS: Record<string, SmtpStep | undefined> = {
  EHLO: 'ehlo',
  HELO: 'ehlo',
  MAIL: 'mail',
  RCPT: 'rcpt',
  RSET: 'rset',
};

interface Outcome {
  reply: string;
  /** What the session does once the replies so far are written: end, upgrade, fall silent, or drop. */
  after?: 'close' | 'starttls' | 'stall' | 'drop';
}

interface Session {
  socket: Socket;
  clientIp: string;
  /** The server's behaviour towards this client, read afresh at each use so `behave()` applies at once. */
  readonly spec: ServerSpec;
  greeted: boolean;
  secure: boolean;
  mailFrom: string | null;
  recipients: number;
  /** Replies are written in order, each batch after one emulated round trip. */
  queue: Promise<void>;
  closed: boolean;
  /** The session is over for the server: counted once, when the client hangs up or the connection closes. */
  release: () => void;
}

/**
 * One lab mail server on its own 127.x address: speaks enough ESMTP (EHLO/HELO, STARTTLS,
 * PIPELINING, MAIL, RCPT, RSET, NOOP, QUIT) to behave like the internet's servers do to a prober,
 * and records what it was sent so tests can assert politeness and hygiene.
 */
export class LabSmtpServer {
  private readonly listener = new TcpListener((socket) => this.accept(socket));
  private readonly greylist = new Map<string, number>();
  /** One context for all of the server's sessions, as a real server has: its tickets resume later sessions. */
  private readonly tls = createSecureContext({ key: LAB_TLS_KEY, cert: LAB_TLS_CERT });
  stats: SmtpStats = emptyStats();
  private readonly heard = new EventEmitter();

  constructor(
    private readonly world: World,
    readonly lab: LabServer,
    readonly port: number,
    private readonly recordCommands = true,
  ) {}

  private get spec() {
    return this.lab.spec;
  }

  /** The server's spec merged with a client's overrides (the server's own object when it has none). */
  private specFor(clientIp: string): ServerSpec {
    const overrides = this.spec.clients?.[clientIp];
    return overrides ? { ...this.spec, ...overrides } : this.spec;
  }

  private reply(name: ReplyName, session: Session, addr = ''): string {
    const template = session.spec.replies?.[name] ?? DEFAULT_REPLIES[name];
    return render(template, { host: this.lab.name, ip: session.clientIp, addr });
  }

  /**
   * Changes the server's behaviour for every command from now on (a hostile server turned good, say);
   * new `clients` entries apply to open sessions from their next command.
   */
  behave(changes: Partial<ServerSpec>): void {
    Object.assign(this.spec, changes);
  }

  /** Calls `listener` with every command line as it arrives, until the returned function is called. */
  onCommand(listener: (command: string) => void): () => void {
    this.heard.on('command', listener);
    return () => this.heard.off('command', listener);
  }

  resetStats(): void {
    // Sessions still open stay counted, so that their end does not take the counts below zero.
    const byClient = Object.fromEntries(
      Object.entries(this.stats.byClient)
        .filter(([, client]) => client.active > 0)
        .map(([ip, { active }]) => [ip, { sessions: 0, active, peakConcurrent: 0 }]),
    );
    this.stats = { ...emptyStats(), active: this.stats.active, byClient };
  }

  async start(): Promise<void> {
    if (!this.spec.down) await this.listener.listen(this.port, this.lab.ip);
  }

  stop(): Promise<void> {
    return this.listener.close();
  }

  private send(session: Session, text: string, delayMs = session.spec.latencyMs ?? 0): Promise<void> {
    this.stats.replyBatches++;
    session.queue = session.queue.then(async () => {
      // Unref: a tarpit's pending banner must not keep a finished test process alive.
      if (delayMs > 0) await new Promise((done) => setTimeout(done, delayMs).unref());
      if (!session.closed && !session.socket.destroyed) session.socket.write(text);
    });
    return session.queue;
  }

  private close(session: Session): void {
    session.queue = session.queue.then(() => {
      session.closed = true;
      session.socket.end();
    });
  }

  /** Ends the connection abruptly once the replies so far are written: no reply, no goodbye. */
  private drop(session: Session): void {
    session.queue = session.queue.then(() => {
      session.closed = true;
      session.socket.destroy();
    });
  }

  /** A session that sends nothing for a while is ended: silently, or with 421 when the spec says how long. */
  private timeOutIdle(session: Session, socket: Socket): void {
    socket.setTimeout(session.spec.idleTimeoutMs ?? IDLE_TIMEOUT_MS, () => {
      if (session.spec.idleTimeoutMs === undefined || session.closed) return socket.destroy();
      void this.send(session, this.reply('idleTimeout', session), 0);
      this.close(session);
    });
  }

  private accept(socket: Socket): void {
    const clientIp = socket.remoteAddress ?? '';
    const specFor = () => this.specFor(clientIp);
    const session: Session = {
      socket,
      clientIp,
      get spec() {
        return specFor();
      },
      greeted: false,
      secure: false,
      mailFrom: null,
      recipients: 0,
      queue: Promise.resolve(),
      closed: false,
      release: () => undefined,
    };
    this.stats.sessions++;
    this.stats.active++;
    this.stats.peakConcurrent = Math.max(this.stats.peakConcurrent, this.stats.active);
    const client = (this.stats.byClient[clientIp] ??= { sessions: 0, active: 0, peakConcurrent: 0 });
    client.sessions++;
    client.active++;
    client.peakConcurrent = Math.max(client.peakConcurrent, client.active);
    let released = false;
    session.release = () => {
      if (released) return;
      released = true;
      this.stats.active--;
      // Looked up again: resetStats may have replaced the entry since.
      this.stats.byClient[clientIp].active--;
    };
    // A client that hung up (QUIT and FIN) has ended its session, though the lab, on a busy loop, may
    // see the socket close only after the client's next connection: counting until then would
    // report two sessions where the client never held more than one at a time.
    socket.on('end', session.release);
    socket.on('close', session.release);
    socket.on('error', () => socket.destroy());
    const spec = session.spec;
    if (spec.hangUp) return void socket.destroy();
    this.timeOutIdle(session, socket);

    const latency = spec.latencyMs ?? 0;
    if (spec.maxConnections !== undefined && this.stats.active > spec.maxConnections) {
      this.stats.refused++;
      void this.send(session, this.reply('tooManyConnections', session));
      this.close(session);
      return;
    }
    // The connection is left open, unanswered, until the client gives up (or the idle timeout).
    if (spec.silent) return;
    const bannerDelay = latency + (spec.bannerDelayMs ?? 0);
    if (spec.blockSender === 'banner') {
      void this.send(session, this.reply('blocked', session), bannerDelay);
      this.close(session);
      return;
    }
    const banner = spec.multilineBanner
      ? render(`220 {host} ESMTP ready\nNo unsolicited bulk mail\nPolicy: http://{host}/policy`, {
          host: this.lab.name,
        })
      : this.reply('banner', session);
    void this.send(session, banner, bannerDelay);
    this.read(session, socket);
  }

  /** Splits input into lines, noting any that are not terminated by CRLF, and answers each. */
  private read(session: Session, socket: Socket): void {
    let buffer = '';
    const onData = (chunk: Buffer) => {
      buffer += chunk.toString('latin1');
      const replies: string[] = [];
      let newline: number;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        let line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        if (line.endsWith('\r')) line = line.slice(0, -1);
        else this.stats.violations.push(`bare LF after ${JSON.stringify(line)}`);
        if (line.includes('\r')) this.stats.violations.push(`bare CR in ${JSON.stringify(line)}`);
        if (line.includes('\0')) this.stats.violations.push(`NUL in ${JSON.stringify(line)}`);
        const command = Buffer.from(line, 'latin1').toString('utf8');
        if (this.recordCommands) this.stats.commands.push(command);
        this.heard.emit('command', command);
        const outcome = this.command(session, command);
        replies.push(outcome.reply);
        if (outcome.after === 'close') {
          socket.off('data', onData);
          void this.send(session, replies.join(''));
          this.close(session);
          return;
        }
        if (outcome.after === 'starttls') {
          // RFC 3207: anything pipelined after STARTTLS is discarded, never executed.
          socket.off('data', onData);
          void this.send(session, replies.join('')).then(() => this.upgrade(session));
          return;
        }
        if (outcome.after === 'stall' || outcome.after === 'drop') {
          // Whatever the client sends from now on goes unanswered.
          socket.off('data', onData);
          const written = replies.join('');
          if (written) void this.send(session, written);
          if (outcome.after === 'drop') this.drop(session);
          return;
        }
      }
      if (buffer.length > MAX_LINE) {
        this.stats.violations.push(`line over ${MAX_LINE} octets`);
        buffer = '';
        replies.push('500 5.5.2 Error: line too long\r\n');
      }
      if (replies.length > 0) void this.send(session, replies.join(''));
    };
    socket.on('data', onData);
  }

  private upgrade(session: Session): void {
    if (session.closed || session.socket.destroyed) return;
    if (session.spec.tlsBroken) {
      // Garbage instead of a ServerHello: the client's handshake fails.
      session.socket.end('this is not TLS\r\n');
      return;
    }
    const plain = session.socket;
    const secure = new TLSSocket(plain, { isServer: true, secureContext: this.tls });
    secure.on('error', () => plain.destroy());
    secure.on('end', session.release);
    secure.once('secure', () => {
      this.stats.tlsSessions++;
      if (secure.isSessionReused()) this.stats.tlsResumed++;
    });
    Object.assign(session, { socket: secure, secure: true, greeted: false, mailFrom: null, recipients: 0 });
    // The TLS socket reads now: its silence is the session's.
    plain.setTimeout(0);
    this.timeOutIdle(session, secure);
    this.read(session, secure);
  }

  /** The reply to one command, or the hostile behaviour the server is told to show at it. */
  private command(session: Session, line: string): Outcome {
    const space = line.indexOf(' ');
    const verb = (space < 0 ? line : line.slice(0, space)).toUpperCase();
    const argument = space < 0 ? '' : line.slice(space + 1).trim();
    const step = STEPS[verb];
    const spec = session.spec;
    if (step && spec.dropAfter === step) return { reply: '', after: 'drop' };
    if (step && spec.vanishAt === step) return { reply: '', after: 'stall' };
    const outcome = this.answer(session, verb, argument);
    // Half of the reply: a multi-line one cut between or inside its lines, a single line without its CRLF.
    if (step && spec.stallAt === step)
      return { reply: outcome.reply.slice(0, Math.ceil(outcome.reply.length / 2)), after: 'stall' };
    return outcome;
  }

  private answer(session: Session, verb: string, argument: string): Outcome {
    const spec = session.spec;
    const tls = spec.tls ?? 'offered';
    switch (verb) {
      case 'EHLO': {
        if (spec.ehlo === false) return { reply: '502 5.5.2 Error: command not recognized\r\n' };
        if (!argument) return { reply: '501 5.5.4 Syntax: EHLO hostname\r\n' };
        Object.assign(session, { greeted: true, mailFrom: null, recipients: 0 });
        const extensions = [`${this.lab.name}`];
        if (spec.pipelining !== false) extensions.push('PIPELINING');
        extensions.push('SIZE 52428800');
        if (tls !== 'none' && !session.secure) extensions.push('STARTTLS');
        extensions.push('ENHANCEDSTATUSCODES', '8BITMIME');
        if (spec.smtputf8) extensions.push('SMTPUTF8');
        extensions.push('CHUNKING');
        return { reply: render(`250 ${extensions.join('\n')}`, {}) };
      }
      case 'HELO':
        if (!argument) return { reply: '501 5.5.4 Syntax: HELO hostname\r\n' };
        Object.assign(session, { greeted: true, mailFrom: null, recipients: 0 });
        return { reply: `250 ${this.lab.name}\r\n` };
      case 'STARTTLS':
        if (tls === 'none' || session.secure) return { reply: '502 5.5.1 Error: command not implemented\r\n' };
        return { reply: '220 2.0.0 Ready to start TLS\r\n', after: 'starttls' };
      case 'MAIL': {
        if (!session.greeted) return { reply: '503 5.5.1 Error: send HELO/EHLO first\r\n' };
        if (tls === 'required' && !session.secure) return { reply: this.reply('tlsRequired', session) };
        if (session.mailFrom !== null) return { reply: '503 5.5.1 Error: nested MAIL command\r\n' };
        const from = addressOf(argument, 'FROM');
        if (from === null) return { reply: '501 5.5.4 Syntax: MAIL FROM:<address>\r\n' };
        if (spec.blockSender === 'mail') return { reply: this.reply('blocked', session) };
        session.mailFrom = from;
        session.recipients = 0;
        return { reply: '250 2.1.0 Ok\r\n' };
      }
      case 'RCPT':
        return { reply: this.recipient(session, argument) };
      case 'RSET':
        Object.assign(session, { mailFrom: null, recipients: 0 });
        return { reply: this.reply('rset', session) };
      case 'NOOP':
        return { reply: '250 2.0.0 Ok\r\n' };
      case 'VRFY':
        return { reply: '252 2.0.0 Cannot VRFY user, but will accept message and attempt delivery\r\n' };
      case 'QUIT':
        return { reply: '221 2.0.0 Bye\r\n', after: 'close' };
      case 'DATA':
        return { reply: '554 5.5.1 Error: the lab does not accept message content\r\n' };
      default:
        return { reply: '502 5.5.2 Error: command not recognized\r\n' };
    }
  }

  private recipient(session: Session, argument: string): string {
    if (session.mailFrom === null) return '503 5.5.1 Error: need MAIL command\r\n';
    const spec = session.spec;
    const addr = addressOf(argument, 'TO');
    if (addr === null || !addr.includes('@')) return '501 5.1.3 Bad recipient address syntax\r\n';
    if (spec.maxRecipients !== undefined && session.recipients >= spec.maxRecipients) {
      return this.reply('tooManyRecipients', session, addr);
    }
    session.recipients++;
    if (spec.blockSender === 'rcpt') return this.reply('blocked', session, addr);
    if (/[^\x00-\x7f]/.test(addr.slice(0, addr.lastIndexOf('@'))) && !spec.smtputf8) {
      return this.reply('utf8Unsupported', session, addr);
    }
    const answer = this.world.recipient(this.lab, spec, addr);
    if (answer.kind === 'not-served') return this.reply('relayDenied', session, addr);
    if (spec.greylistMs) {
      const key = `${session.clientIp}|${session.mailFrom}|${addr.toLowerCase()}`;
      const firstSeen = this.greylist.get(key);
      if (firstSeen === undefined) this.greylist.set(key, Date.now());
      if (firstSeen === undefined || Date.now() - firstSeen < spec.greylistMs)
        return this.reply('greylisted', session, addr);
    }
    if (answer.kind === 'unknown') return this.reply('unknownUser', session, addr);
    switch (answer.state) {
      case 'ok':
        return this.reply('accepted', session, addr);
      case 'full':
        return this.reply('full', session, addr);
      case 'full-temporary':
        return this.reply('fullTemporary', session, addr);
      case 'disabled':
        return this.reply('disabled', session, addr);
      default:
        return render(answer.state, { addr, ip: session.clientIp, host: this.lab.name });
    }
  }
}
