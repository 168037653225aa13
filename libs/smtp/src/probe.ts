import { isPublicAddress } from './address-policy';
import { classifyReply, type ReplyClass } from './classify';
import { SmtpError, SmtpSession, type Connector } from './client';
import type { SmtpReply } from './reply';
import { CoolingDownError, GateAbortedError, type SessionGate, type SlotLease } from './session-gate';

export interface ProbeHost {
  exchange: string;
  addresses: string[];
}

export interface ProbeOptions {
  hosts: ProbeHost[];
  /** RCPT TO form of the address (A-label domain). */
  address: string;
  needsSmtpUtf8: boolean;
  /** A made-up local part to test the domain for catch-all; null to skip (the answer is known). */
  catchAllLocalPart: string | null;
  heloName: string;
  mailFrom: string;
  port: number;
  timeoutMs: number;
  connector: Connector;
  allowPrivate: boolean;
  /** Per-MX session cap; every session holds a slot from connect to close. */
  gate: SessionGate;
  /** Epoch ms of the check's deadline: `signal` aborts every session then. */
  deadlineAt: number;
  signal?: AbortSignal;
}

/** How far the probe got when no server gave a definite answer. */
/** `skipped`: not asked, because an earlier address of its group was accepted (`stopAtAccepted`). */
export type ProbeFailure = 'greylisted' | 'sender_blocked' | 'tls_failed' | 'timeout' | 'no_connection' | 'private_address' | 'smtputf8_unsupported' | 'refused' | 'skipped';

export interface ProbeResult {
  /** A server answered for the mailbox (accepted, no such user, disabled or full). */
  definite: boolean;
  /** The class of the target's RCPT reply, when there was one. */
  replyClass: ReplyClass | null;
  failure: ProbeFailure | null;
  /** The reply that decided (the target's RCPT reply, else the most telling refusal). */
  reply: SmtpReply | null;
  host: string | null;
  /** true/false when the made-up address was accepted/refused; null when untested or unclear. */
  catchAll: boolean | null;
  sessions: number;
  roundTrips: number;
}

const BUSY_COOL_DOWN_MS = 30_000;
const BLOCKED_COOL_DOWN_MS = 10 * 60_000;

const DEFINITE: ReplyClass[] = ['accepted', 'mailbox_exists', 'no_such_user', 'disabled', 'full'];
/** When nobody answers definitely, report the most telling failure. */
const FAILURE_RANK: ProbeFailure[] = ['greylisted', 'sender_blocked', 'tls_failed', 'smtputf8_unsupported', 'refused', 'timeout', 'no_connection', 'private_address'];

function failureOf(replyClass: ReplyClass): ProbeFailure {
  switch (replyClass) {
    case 'greylisted':
    case 'temporary':
    case 'too_many_recipients':
      return 'greylisted';
    case 'sender_blocked':
      return 'sender_blocked';
    case 'tls_required':
      return 'tls_failed';
    default:
      return 'refused';
  }
}

function catchAllOf(reply: SmtpReply | undefined): boolean | null | 'separately' {
  if (!reply) return null;
  const replyClass = classifyReply(reply);
  if (replyClass === 'accepted' || replyClass === 'mailbox_exists') return true;
  if (replyClass === 'no_such_user' || replyClass === 'disabled') return false;
  if (replyClass === 'too_many_recipients') return 'separately';
  return null;
}

class Attempt {
  sessions = 0;
  roundTrips = 0;
  failures: Array<{ failure: ProbeFailure; reply: SmtpReply | null; host: string }> = [];

  /** MAIL FROM of every transaction of this probe. */
  readonly mail: string;

  constructor(private readonly options: Omit<ProbeOptions, 'address'>) {
    this.mail = `MAIL FROM:<${options.mailFrom}>${options.needsSmtpUtf8 ? ' SMTPUTF8' : ''}`;
  }

  /** The host's addresses the prober may connect to; none (noted) when all are private. */
  reachable(host: ProbeHost): string[] {
    const addresses = host.addresses.filter((address) => this.options.allowPrivate || isPublicAddress(address));
    if (addresses.length === 0) this.note('private_address', host.exchange);
    return addresses;
  }

  private readonly ended = new WeakSet<SmtpSession>();

  note(failure: ProbeFailure, host: string, reply: SmtpReply | null = null): void {
    this.failures.push({ failure, reply, host });
  }

  /** Ends a session (QUIT, or a plain close after an error) and counts its round trips, once. */
  end(session: SmtpSession, how: 'quit' | 'close' = 'quit'): void {
    if (this.ended.has(session)) return;
    this.ended.add(session);
    this.roundTrips += session.roundTrips;
    if (how === 'quit') session.quit();
    else session.close();
  }

  /**
   * A greeted session ready for MAIL FROM, or null (noted) when the server refused us or lacks
   * SMTPUTF8 that the address needs; a broken TLS handshake is tried once more in plaintext, as
   * senders do (RFC 7435).
   */
  async open(host: string, address: string): Promise<{ session: SmtpSession | null; plain: boolean }> {
    let opened: { session: SmtpSession | null; plain: boolean };
    try {
      opened = { session: await this.session(host, address, false), plain: false };
    } catch (error) {
      if (!(error instanceof SmtpError && error.kind === 'tls')) throw error;
      opened = { session: await this.session(host, address, true), plain: true };
    }
    if (opened.session && this.options.needsSmtpUtf8 && !opened.session.extensions.has('SMTPUTF8')) {
      this.end(opened.session);
      this.note('smtputf8_unsupported', host);
      return { session: null, plain: opened.plain };
    }
    return opened;
  }

  /** A greeted session, TLS negotiated when offered (or plain when `plain`), ready for MAIL FROM. */
  async session(host: string, address: string, plain: boolean): Promise<SmtpSession | null> {
    const options = this.options;
    let lease: SlotLease;
    try {
      lease = await options.gate.acquire(host, { until: options.deadlineAt, signal: options.signal });
    } catch (error) {
      if (error instanceof GateAbortedError) throw new SmtpError('aborted', error.message);
      if (error instanceof CoolingDownError) {
        this.note(error.reason === 'blocked' ? 'sender_blocked' : 'greylisted', host);
        return null;
      }
      throw error;
    }
    this.sessions++;
    // From here the session owns the lease: it gives it back when its connection ends, however.
    const { session, banner } = await SmtpSession.open({
      host,
      address,
      port: options.port,
      timeoutMs: options.timeoutMs,
      connector: options.connector,
      signal: options.signal,
      onConnected: lease.connected,
      onEnd: lease.release,
    });
    if (banner.code >= 400) {
      this.end(session, 'close');
      const failure = failureOf(classifyReply(banner, 'banner'));
      // A server that is full or refuses us is left alone for a while, by every prober.
      await options.gate.coolDown(host, failure === 'sender_blocked' ? BLOCKED_COOL_DOWN_MS : BUSY_COOL_DOWN_MS, failure === 'sender_blocked' ? 'blocked' : 'busy');
      this.note(failure, host, banner);
      return null;
    }
    let hello: SmtpReply;
    try {
      hello = await session.hello(options.heloName);
      if (hello.code === 250 && !plain && session.extensions.has('STARTTLS')) {
        const tls = await session.startTls();
        if (tls.code === 220) hello = await session.hello(options.heloName);
      }
    } catch (error) {
      // The caller never sees this session: it is closed here.
      this.end(session, 'close');
      throw error;
    }
    if (hello.code !== 250) {
      this.end(session);
      this.note(failureOf(classifyReply(hello, 'ehlo')), host, hello);
      return null;
    }
    return session;
  }
}

/**
 * Check 4: asks the domain's MX hosts, in priority order, whether they take mail for the address,
 * and in the same session (PIPELINING: in the same round trip) whether they take a made-up address
 * too. The target is always asked first. Every MX is tried until one answers definitely.
 */
export async function probeMailbox(options: ProbeOptions): Promise<ProbeResult> {
  const attempt = new Attempt(options);
  const { mail } = attempt;
  const rcpt = `RCPT TO:<${options.address}>`;
  const domain = options.address.slice(options.address.lastIndexOf('@') + 1);
  const decoy = options.catchAllLocalPart ? `RCPT TO:<${options.catchAllLocalPart}@${domain}>` : null;

  for (const host of options.hosts) {
    for (const address of attempt.reachable(host)) {
      let session: SmtpSession | null = null;
      try {
        const opened = await attempt.open(host.exchange, address);
        session = opened.session;
        const { plain } = opened;
        if (!session) break;
        const commands = session.pipelining && decoy ? [mail, rcpt, decoy] : [mail, rcpt];
        const replies = session.pipelining ? await session.send(...commands) : [await session.command(mail)];
        const mailReply = replies[0];
        if (mailReply.code !== 250) {
          attempt.end(session);
          const failure = failureOf(classifyReply(mailReply, 'mail'));
          attempt.note(plain && failure === 'tls_failed' ? 'tls_failed' : failure, host.exchange, mailReply);
          break;
        }
        const target = replies[1] ?? (await session.command(rcpt));
        const targetClass = classifyReply(target);
        if (!DEFINITE.includes(targetClass)) {
          attempt.end(session);
          if (targetClass === 'sender_blocked') await options.gate.coolDown(host.exchange, BLOCKED_COOL_DOWN_MS, 'blocked');
          attempt.note(failureOf(targetClass), host.exchange, target);
          break;
        }
        let decoyReply = replies[2];
        if (!decoyReply && decoy && targetClass !== 'no_such_user') decoyReply = await session.command(decoy);
        attempt.end(session);
        let catchAll = targetClass === 'no_such_user' ? false : catchAllOf(decoyReply);
        if (catchAll === 'separately' && decoy) catchAll = await probeSeparately(attempt, host.exchange, address, plain, mail, decoy);
        return {
          definite: true,
          replyClass: targetClass,
          failure: null,
          reply: target,
          host: host.exchange,
          catchAll: catchAll === 'separately' ? null : catchAll,
          sessions: attempt.sessions,
          roundTrips: attempt.roundTrips,
        };
      } catch (error) {
        if (session) attempt.end(session, 'close');
        if (!(error instanceof SmtpError)) throw error;
        if (error.kind === 'aborted') return summarise(attempt, 'timeout');
        attempt.note(error.kind === 'connect' ? 'no_connection' : error.kind === 'tls' ? 'tls_failed' : 'timeout', host.exchange);
        // A refused connection may succeed on the host's next address; anything else moves on.
        if (error.kind !== 'connect') break;
      }
    }
  }
  return summarise(attempt, null);
}

/** The made-up recipient in a session of its own, for servers that refuse a second RCPT. */
async function probeSeparately(attempt: Attempt, host: string, address: string, plain: boolean, mail: string, decoy: string): Promise<boolean | null> {
  let session: SmtpSession | null = null;
  try {
    session = await attempt.session(host, address, plain);
    if (!session) return null;
    const [mailReply, decoyReply] = session.pipelining ? await session.send(mail, decoy) : [await session.command(mail)];
    const reply = mailReply.code === 250 ? (decoyReply ?? (await session.command(decoy))) : undefined;
    attempt.end(session);
    const catchAll = catchAllOf(reply);
    return catchAll === 'separately' ? null : catchAll;
  } catch {
    if (session) attempt.end(session, 'close');
    return null;
  }
}

function summarise(attempt: Attempt, forced: ProbeFailure | null): ProbeResult {
  const ranked = [...attempt.failures].sort((a, b) => FAILURE_RANK.indexOf(a.failure) - FAILURE_RANK.indexOf(b.failure));
  const best = ranked[0];
  return {
    definite: false,
    replyClass: best?.reply ? classifyReply(best.reply) : null,
    failure: forced ?? best?.failure ?? 'no_connection',
    reply: best?.reply ?? null,
    host: best?.host ?? null,
    catchAll: null,
    sessions: attempt.sessions,
    roundTrips: attempt.roundTrips,
  };
}

export interface GroupProbeOptions extends Omit<ProbeOptions, 'address' | 'needsSmtpUtf8'> {
  /** RCPT TO forms of addresses at one domain (A-label). */
  addresses: string[];
  /** Some address needs SMTPUTF8. */
  needsSmtpUtf8: boolean;
  /**
   * The finder's way: at most this many recipients per transaction, the likeliest first, and no
   * more transactions once one is accepted; the rest come back `skipped`. Unset: everyone is asked.
   */
  stopAtAccepted?: number;
}

export interface GroupProbeResult {
  /** One per address, in order. */
  results: ProbeResult[];
  sessions: number;
  roundTrips: number;
}

/** Recipients per transaction until a server says it takes fewer (RFC 5321 asks servers for 100). */
const RECIPIENTS_PER_TRANSACTION = 100;

/** MAIL and the RCPTs of one transaction: pipelined in one round trip, else one command at a time. */
async function transaction(session: SmtpSession, mail: string, rcpts: string[]): Promise<SmtpReply[]> {
  if (session.pipelining) return session.send(mail, ...rcpts);
  const replies = [await session.command(mail)];
  if (replies[0].code !== 250) return replies;
  for (const rcpt of rcpts) replies.push(await session.command(rcpt));
  return replies;
}

/**
 * Check 4 for many addresses at one domain (bulk lists): one session asks for all of them, several
 * RCPT TO per transaction (RSET between transactions), and the made-up address once for the whole
 * group. A server that refuses more recipients (452 4.5.3) gets smaller transactions; addresses no
 * server answered definitely move on to the next MX, as in `probeMailbox`.
 */
export async function probeMailboxes(options: GroupProbeOptions): Promise<GroupProbeResult> {
  const attempt = new Attempt(options);
  const { mail } = attempt;
  const first = options.addresses[0] ?? '';
  const domain = first.slice(first.lastIndexOf('@') + 1);
  let decoy = options.catchAllLocalPart ? `RCPT TO:<${options.catchAllLocalPart}@${domain}>` : null;
  let catchAll: boolean | null = null;
  const answers: Array<{ replyClass: ReplyClass; reply: SmtpReply; host: string } | null> = options.addresses.map(() => null);
  const refusals = new Map<number, Array<{ failure: ProbeFailure; reply: SmtpReply | null; host: string }>>();
  let pending = options.addresses.map((_, index) => index);
  const skipped = new Set<number>();

  hosts: for (const host of options.hosts) {
    if (pending.length === 0) break;
    for (const address of attempt.reachable(host)) {
      let session: SmtpSession | null = null;
      try {
        ({ session } = await attempt.open(host.exchange, address));
        if (!session) continue hosts;
        let limit = options.stopAtAccepted ?? RECIPIENTS_PER_TRANSACTION;
        let queue = pending;
        const unsettled: number[] = [];
        while (queue.length > 0) {
          const batch = queue.slice(0, limit);
          const rcpts = batch.map((index) => `RCPT TO:<${options.addresses[index]}>`);
          const replies = await transaction(session, mail, decoy ? [...rcpts, decoy] : rcpts);
          if (replies[0].code !== 250) {
            attempt.note(failureOf(classifyReply(replies[0], 'mail')), host.exchange, replies[0]);
            break;
          }
          const again: number[] = [];
          let blocked = false;
          batch.forEach((index, position) => {
            const reply = replies[position + 1];
            const replyClass = classifyReply(reply);
            if (DEFINITE.includes(replyClass)) answers[index] = { replyClass, reply, host: host.exchange };
            else if (replyClass === 'too_many_recipients') again.push(index);
            else {
              blocked ||= replyClass === 'sender_blocked';
              refusals.set(index, [...(refusals.get(index) ?? []), { failure: failureOf(replyClass), reply, host: host.exchange }]);
              unsettled.push(index);
            }
          });
          if (decoy) {
            const told = catchAllOf(replies[batch.length + 1]);
            if (told !== 'separately') catchAll = told;
            decoy = null;
          }
          // Blocked, or refused every recipient for their number (no progress): this session is done.
          if (blocked || again.length === batch.length) {
            if (blocked) await options.gate.coolDown(host.exchange, BLOCKED_COOL_DOWN_MS, 'blocked');
            for (const index of again) refusals.set(index, [...(refusals.get(index) ?? []), { failure: 'greylisted', reply: replies[batch.indexOf(index) + 1], host: host.exchange }]);
            unsettled.push(...again, ...queue.slice(batch.length));
            queue = [];
            break;
          }
          // The server took this many recipients in one transaction: no more from now on.
          if (again.length > 0) limit = Math.max(1, batch.length - again.length);
          queue = [...again, ...queue.slice(batch.length)];
          if (options.stopAtAccepted && batch.some((index) => answers[index]?.replyClass === 'accepted')) {
            for (const index of queue) skipped.add(index);
            queue = [];
          }
          if (queue.length > 0) await session.command('RSET');
        }
        attempt.end(session);
        pending = [...unsettled, ...queue].sort((a, b) => a - b);
        continue hosts;
      } catch (error) {
        if (session) attempt.end(session, 'close');
        if (!(error instanceof SmtpError)) throw error;
        if (error.kind === 'aborted') break hosts;
        attempt.note(error.kind === 'connect' ? 'no_connection' : error.kind === 'tls' ? 'tls_failed' : 'timeout', host.exchange);
        if (error.kind !== 'connect') continue hosts;
      }
    }
  }

  const results = options.addresses.map((_, index): ProbeResult => {
    const answer = answers[index];
    if (answer) {
      return {
        definite: true,
        replyClass: answer.replyClass,
        failure: null,
        reply: answer.reply,
        host: answer.host,
        catchAll: answer.replyClass === 'no_such_user' ? false : catchAll,
        sessions: 0,
        roundTrips: 0,
      };
    }
    if (skipped.has(index)) return { definite: false, replyClass: null, failure: 'skipped', reply: null, host: null, catchAll, sessions: 0, roundTrips: 0 };
    const own = new Attempt(options);
    own.failures = [...attempt.failures, ...(refusals.get(index) ?? [])];
    return { ...summarise(own, null), sessions: 0, roundTrips: 0 };
  });
  return { results, sessions: attempt.sessions, roundTrips: attempt.roundTrips };
}
