import { isIP } from 'node:net';
import { addressPolicy } from '@mailguard/net';
import { classifyReply, type ReplyClass } from './classify';
import { SmtpError, SmtpSession, type Connector } from './client';
import type { SmtpReply } from './reply';
import { BoundedMap } from './bounded-map';
import type { TlsSessionCache } from './tls-sessions';
import { SessionPool } from './session-pool';
import {
  CoolingDownError,
  GateAbortedError,
  type CoolDownReason,
  type SessionGate,
  type SlotLease,
} from './session-gate';

export interface ProbeHost {
  exchange: string;
  addresses: string[];
}

export interface ProbeOptions {
  hosts: ProbeHost[];
  /** RCPT TO forms of addresses at one domain (A-label); a single check is a group of one. */
  addresses: string[];
  /** Some address needs SMTPUTF8. */
  needsSmtpUtf8: boolean;
  /**
   * A made-up local part to test the domain for catch-all; null to skip (the answer is known). It
   * may still be being found out: it is awaited at the first transaction, after connect and greeting.
   */
  catchAllLocalPart: string | null | Promise<string | null>;
  /**
   * The finder's way: at most this many recipients per transaction, the likeliest first, and no
   * more transactions once one is accepted; the rest come back `skipped`. Unset: everyone is asked.
   */
  stopAtAccepted?: number;
  heloName: string;
  mailFrom: string;
  port: number;
  timeoutMs: number;
  /** The egress the probe goes out through (its id keys the sessions kept open), the address family it reaches, and its connector. */
  egress?: string;
  family?: 4 | 6 | null;
  connector: Connector;
  allowPrivate: boolean;
  /** Per-MX session cap; every session holds a slot from connect to close. */
  gate: SessionGate;
  /** TLS sessions to resume with hosts seen before. */
  tlsSessions?: TlsSessionCache;
  /** Greeted sessions kept between probes: taken before a new one is opened, given back when a probe ends well. */
  pool?: SessionPool;
  /** Recipients per transaction that hosts said they take (452 4.5.3), learnt by earlier probes. */
  recipientLimits?: RecipientLimits;
  /** Epoch ms of the check's deadline: `signal` aborts every session then. */
  deadlineAt: number;
  signal?: AbortSignal;
}

/** How far the probe got when no server gave a definite answer. */
/** `skipped`: not asked, because an earlier address of its group was accepted (`stopAtAccepted`). */
export type ProbeFailure =
  | 'greylisted'
  | 'rate_limited'
  | 'sender_blocked'
  | 'tls_failed'
  | 'timeout'
  | 'no_connection'
  | 'private_address'
  | 'smtputf8_unsupported'
  | 'refused'
  | 'skipped';

/** Failures that ask us to come back later: the one greylisting policy retries them (after GREYLIST_RETRY_SECONDS). */
export function asksToRetryLater(failure: ProbeFailure | null): boolean {
  return failure === 'greylisted' || failure === 'rate_limited';
}

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
  /** Sessions and round trips of the probe that asked it (shared by its whole group). */
  sessions: number;
  roundTrips: number;
}

interface CoolDown {
  ms: number;
  reason: CoolDownReason;
}
const BUSY: CoolDown = { ms: 30_000, reason: 'busy' };

const DEFINITE: ReplyClass[] = ['accepted', 'mailbox_exists', 'no_such_user', 'disabled', 'full'];
/** When nobody answers definitely, report the most telling failure. */
const FAILURE_RANK: ProbeFailure[] = [
  'greylisted',
  'rate_limited',
  'sender_blocked',
  'tls_failed',
  'smtputf8_unsupported',
  'refused',
  'timeout',
  'no_connection',
  'private_address',
];

function failureOf(replyClass: ReplyClass): ProbeFailure {
  switch (replyClass) {
    case 'greylisted':
    case 'temporary':
    case 'too_many_recipients':
      return 'greylisted';
    case 'rate_limited':
      // Asked to slow down: worth trying again later, like greylisting (the host cools down meanwhile).
      return 'rate_limited';
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

/** Why a host gave no answer: the reply, when there was one, with its class as read at the stage it came. */
interface Refusal {
  failure: ProbeFailure;
  reply: SmtpReply | null;
  replyClass: ReplyClass | null;
  host: string;
}

class Attempt {
  sessions = 0;
  roundTrips = 0;
  failures: Refusal[] = [];

  /** MAIL FROM of every transaction of this probe. */
  readonly mail: string;

  constructor(private readonly options: ProbeOptions) {
    this.mail = `MAIL FROM:<${options.mailFrom}>${options.needsSmtpUtf8 ? ' SMTPUTF8' : ''}`;
  }

  /** The host's addresses the prober may connect to; none (noted) when all are private. */
  reachable(host: ProbeHost): string[] {
    const { family } = this.options;
    const addresses = host.addresses.filter(
      (address) => addressPolicy(this.options.allowPrivate)(address) && (!family || isIP(address) === family),
    );
    if (addresses.length === 0) this.note('private_address', host.exchange);
    return addresses;
  }

  private readonly ended = new WeakSet<SmtpSession>();
  /** The lease and pool key of each session of this attempt, for parking it when it ends well. */
  private readonly held = new Map<SmtpSession, { lease: SlotLease; key: string }>();

  note(
    failure: ProbeFailure,
    host: string,
    reply: SmtpReply | null = null,
    replyClass: ReplyClass | null = null,
  ): void {
    this.failures.push({ failure, reply, replyClass, host });
  }

  /**
   * Cools the host down, for every prober, when the reply asked us to slow down (`otherwise`: any
   * other refusal but a block). A refusal of us is the egress's, not the host's: whoever chose the
   * egress hears of it from the result (`sender_blocked`) and sends the next probes another way.
   */
  async backOff(host: string, replyClass: ReplyClass, otherwise: CoolDown | null = null): Promise<void> {
    // Another egress's sessions there are still welcome.
    if (replyClass === 'sender_blocked') return this.options.pool?.leave(host, this.options.egress ?? 'default');
    const coolDown = replyClass === 'rate_limited' ? BUSY : otherwise;
    if (!coolDown) return;
    this.options.pool?.leave(host);
    await this.options.gate.coolDown(host, coolDown.ms, coolDown.reason);
  }

  /** The key of this probe's sessions in the pool: a kept session belongs to its egress. */
  poolKey(host: string, address: string): string {
    return SessionPool.key(this.options.egress ?? 'default', host, address, this.options.port);
  }

  /**
   * Ends a session (QUIT, or a plain close after an error; `park`: kept in the pool for the next
   * probe when it takes it, else QUIT) and counts its round trips, once.
   */
  end(session: SmtpSession, how: 'quit' | 'close' | 'park' = 'quit'): void {
    if (this.ended.has(session)) return;
    this.ended.add(session);
    this.roundTrips += session.roundTrips;
    const held = this.held.get(session);
    this.held.delete(session);
    if (how === 'park' && held && this.options.pool?.park(held.key, session, held.lease)) return;
    if (how === 'close') session.close();
    else session.quit();
  }

  /**
   * A greeted session ready for MAIL FROM, or null (noted) when the server refused us or lacks
   * SMTPUTF8 that the address needs; a broken TLS handshake is tried once more in plaintext, as
   * senders do (RFC 7435).
   */
  async open(
    host: string,
    address: string,
  ): Promise<{ session: SmtpSession | null; plain: boolean; reused?: boolean }> {
    const pooled = await this.reuse(host, address);
    if (pooled) return pooled;
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

  /**
   * The session parked for this address by an earlier probe, when there is one; its session is null
   * (noted) when it lacks SMTPUTF8 that an address needs, as a new one would.
   */
  private async reuse(
    host: string,
    address: string,
  ): Promise<{ session: SmtpSession | null; plain: boolean; reused: true } | null> {
    const { pool, deadlineAt, signal, needsSmtpUtf8 } = this.options;
    const key = this.poolKey(host, address);
    const pooled = await pool?.take(key, signal);
    if (!pooled) return null;
    const { session, lease } = pooled;
    if (needsSmtpUtf8 && !session.extensions.has('SMTPUTF8')) {
      // The next probe without that need may still use it.
      if (!pool?.park(key, session, lease)) session.quit();
      this.note('smtputf8_unsupported', host);
      return { session: null, plain: false, reused: true };
    }
    lease.extend(deadlineAt);
    this.held.set(session, { lease, key });
    // Plain although the host offers STARTTLS: its TLS broke when the session was opened.
    return { session, plain: !session.secure && session.extensions.has('STARTTLS'), reused: true };
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
        this.note('rate_limited', host);
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
      tlsSessions: options.tlsSessions,
      onConnected: lease.connected,
      onEnd: lease.release,
    });
    this.held.set(session, { lease, key: this.poolKey(host, address) });
    if (banner.code >= 400) {
      this.end(session, 'close');
      const replyClass = classifyReply(banner, 'banner');
      // A server that turns us away at the greeting is busy, unless it says why.
      await this.backOff(host, replyClass, BUSY);
      this.note(failureOf(replyClass), host, banner, replyClass);
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
      const replyClass = classifyReply(hello, 'ehlo');
      await this.backOff(host, replyClass);
      this.note(failureOf(replyClass), host, hello, replyClass);
      return null;
    }
    return session;
  }
}

/** The made-up recipient in a session of its own, for servers that refuse a second RCPT. */
async function probeSeparately(
  attempt: Attempt,
  host: string,
  address: string,
  plain: boolean,
  mail: string,
  decoy: string,
): Promise<boolean | null> {
  let session: SmtpSession | null = null;
  try {
    session = await attempt.session(host, address, plain);
    if (!session) return null;
    const [mailReply, decoyReply] = session.pipelining
      ? await session.send(mail, decoy)
      : [await session.command(mail)];
    const reply = mailReply.code === 250 ? (decoyReply ?? (await session.command(decoy))) : undefined;
    attempt.end(session);
    // Asked to slow down or refused, here too: the host cools down (or the egress hears of it).
    const replyClass = reply ? classifyReply(reply) : mailReply.code === 250 ? null : classifyReply(mailReply, 'mail');
    if (replyClass === 'rate_limited' || replyClass === 'sender_blocked') await attempt.backOff(host, replyClass);
    const catchAll = catchAllOf(reply);
    return catchAll === 'separately' ? null : catchAll;
  } catch {
    if (session) attempt.end(session, 'close');
    return null;
  }
}

function summarise(attempt: Attempt, forced: ProbeFailure | null): ProbeResult {
  const ranked = [...attempt.failures].sort(
    (a, b) => FAILURE_RANK.indexOf(a.failure) - FAILURE_RANK.indexOf(b.failure),
  );
  const best = ranked[0];
  return {
    definite: false,
    // Read at the stage it came: a MAIL FROM refusal is about us, whatever it would say after RCPT.
    replyClass: best?.replyClass ?? null,
    failure: forced ?? best?.failure ?? 'no_connection',
    reply: best?.reply ?? null,
    host: best?.host ?? null,
    catchAll: null,
    sessions: attempt.sessions,
    roundTrips: attempt.roundTrips,
  };
}

export interface GroupProbeResult {
  /** One per address, in order. */
  results: ProbeResult[];
  sessions: number;
  roundTrips: number;
}

/** Recipients per transaction until a server says it takes fewer (RFC 5321 asks servers for 100). */
const RECIPIENTS_PER_TRANSACTION = 100;
/** Hosts whose recipient limit a process remembers (the oldest is forgotten first). */
const REMEMBERED_LIMITS = 10_000;

/**
 * How many recipients per transaction each host takes, as its 452 4.5.3 told an earlier probe: the
 * next probe sends no more than that, instead of learning it again with a refused transaction.
 */
export class RecipientLimits {
  private readonly limits = new BoundedMap<number>(REMEMBERED_LIMITS);

  get(host: string): number | null {
    return this.limits.get(host) ?? null;
  }

  learn(host: string, limit: number): void {
    this.limits.set(host, limit);
  }
}

/**
 * MAIL and the RCPTs of one transaction, after RSET when one came before: pipelined in one round
 * trip (RFC 2920 lets RSET lead the batch), else one command at a time. RSET's reply is not
 * returned: were it refused, the MAIL after it is refused too (nested MAIL), and that decides —
 * except on a session an earlier probe left open (`reset: 'reused'`), where anything but 250 means
 * the replies are not ours to read in order (the server said something meanwhile): an SmtpError.
 */
async function transaction(
  session: SmtpSession,
  mail: string,
  rcpts: string[],
  reset: boolean | 'reused',
): Promise<SmtpReply[]> {
  const checked = (reply: SmtpReply) => {
    if (reset === 'reused' && reply.code !== 250)
      throw new SmtpError('closed', `RSET on a session kept open was answered ${reply.code}`);
  };
  if (session.pipelining) {
    const replies = await session.send(...(reset ? ['RSET'] : []), mail, ...rcpts);
    if (!reset) return replies;
    checked(replies[0]);
    return replies.slice(1);
  }
  if (reset) checked(await session.command('RSET'));
  const replies = [await session.command(mail)];
  if (replies[0].code !== 250) return replies;
  for (const rcpt of rcpts) replies.push(await session.command(rcpt));
  return replies;
}

/**
 * Check 4: asks the domain's MX hosts, in priority order, whether they take mail for the addresses
 * (a single check is a group of one), in one session: several RCPT TO per transaction (PIPELINING:
 * in one round trip; RSET between transactions, pipelined with the next), the targets first and
 * the made-up address after them, once for the whole group (again in the next transaction when its
 * answer was unclear). A server that refuses more recipients (452 4.5.3) gets smaller transactions,
 * from then on in later probes too, and the made-up address a session of its own. Addresses no server answered
 * definitely move on to the next MX: relay denied here, say, may be accepted there.
 */
export async function probeMailboxes(options: ProbeOptions): Promise<GroupProbeResult> {
  const attempt = new Attempt(options);
  const { mail } = attempt;
  const first = options.addresses[0] ?? '';
  const domain = first.slice(first.lastIndexOf('@') + 1);
  let decoy: string | null = null;
  const decoyKnown = Promise.resolve(options.catchAllLocalPart).then((localPart) => {
    decoy = localPart ? `RCPT TO:<${localPart}@${domain}>` : null;
  });
  // Awaited before the first transaction; when no session gets that far, its failure is nobody's answer.
  decoyKnown.catch(() => undefined);
  let catchAll: boolean | null = null;
  /** Where to ask the made-up address alone, when a server refused it as a second recipient. */
  let separately: { host: string; address: string; plain: boolean; decoy: string } | null = null;
  const answers: Array<{ replyClass: ReplyClass; reply: SmtpReply; host: string } | null> = options.addresses.map(
    () => null,
  );
  const refusals = new Map<number, Refusal[]>();
  let pending = options.addresses.map((_, index) => index);
  const skipped = new Set<number>();
  let aborted = false;

  hosts: for (const host of options.hosts) {
    if (pending.length === 0) break;
    const addresses = attempt.reachable(host);
    /** A parked session the server had hung up on: the same address is asked again on a new one, once. */
    let staleRetried = false;
    for (let next = 0; next < addresses.length; next++) {
      const address = addresses[next];
      let session: SmtpSession | null = null;
      /** RSET before the next transaction; 'reused': the first, on a session an earlier probe left open. */
      let reset: boolean | 'reused' = false;
      try {
        const opened = await attempt.open(host.exchange, address);
        session = opened.session;
        if (!session) continue hosts;
        await decoyKnown;
        let capped = options.recipientLimits?.get(host.exchange) ?? null;
        let limit = Math.min(
          options.stopAtAccepted ?? RECIPIENTS_PER_TRANSACTION,
          capped ?? RECIPIENTS_PER_TRANSACTION,
        );
        let queue = pending;
        const unsettled: number[] = [];
        // A session an earlier probe left in the pool has its transaction still open.
        if (opened.reused) reset = 'reused';
        /** Nothing went wrong with the session: the next probe at this address may have it. */
        let reusable = true;
        while (queue.length > 0) {
          // At a host known to cap recipients the made-up address takes a place (else it is refused for its number).
          const batch = queue.slice(0, decoy && capped !== null && limit > 1 ? limit - 1 : limit);
          const rcpts = batch.map((index) => `RCPT TO:<${options.addresses[index]}>`);
          const replies = await transaction(session, mail, decoy ? [...rcpts, decoy] : rcpts, reset);
          reset = true;
          if (replies[0].code !== 250) {
            reusable = false;
            const mailClass = classifyReply(replies[0], 'mail');
            await attempt.backOff(host.exchange, mailClass);
            attempt.note(failureOf(mailClass), host.exchange, replies[0], mailClass);
            break;
          }
          const again: number[] = [];
          /** A refusal of us or a request to slow down: the worst one decides the host's cool-down. */
          let backOff: ReplyClass | null = null;
          batch.forEach((index, position) => {
            const reply = replies[position + 1];
            const replyClass = classifyReply(reply);
            if (DEFINITE.includes(replyClass)) answers[index] = { replyClass, reply, host: host.exchange };
            else if (replyClass === 'too_many_recipients') again.push(index);
            else {
              if (replyClass === 'sender_blocked' || (replyClass === 'rate_limited' && !backOff)) backOff = replyClass;
              refusals.set(index, [
                ...(refusals.get(index) ?? []),
                { failure: failureOf(replyClass), reply, replyClass, host: host.exchange },
              ]);
              unsettled.push(index);
            }
          });
          if (decoy) {
            const decoyReply = replies[batch.length + 1];
            const decoyClass = decoyReply ? classifyReply(decoyReply) : null;
            // A limit or a block told at the made-up address is the host's word on us too: this session
            // ends and the host cools down, rather than another session asking it again.
            if (decoyClass === 'sender_blocked' || (decoyClass === 'rate_limited' && !backOff)) backOff = decoyClass;
            const told = catchAllOf(decoyReply);
            if (told === 'separately') separately = { host: host.exchange, address, plain: opened.plain, decoy };
            else catchAll = told;
            // An unclear answer (greylisting, say) is asked again with the next transaction.
            if (told !== null) decoy = null;
          }
          // Blocked or slowed down, or refused every recipient for their number (no progress): this session is done.
          if (backOff || again.length === batch.length) {
            reusable = false;
            if (backOff) await attempt.backOff(host.exchange, backOff);
            for (const index of again)
              refusals.set(index, [
                ...(refusals.get(index) ?? []),
                {
                  failure: 'greylisted',
                  reply: replies[batch.indexOf(index) + 1],
                  replyClass: 'too_many_recipients',
                  host: host.exchange,
                },
              ]);
            unsettled.push(...again, ...queue.slice(batch.length));
            queue = [];
            break;
          }
          // The server took this many recipients in one transaction: no more from now on, nor in later probes.
          if (again.length > 0) {
            limit = capped = Math.max(1, batch.length - again.length);
            options.recipientLimits?.learn(host.exchange, limit);
          }
          queue = [...again, ...queue.slice(batch.length)];
          if (options.stopAtAccepted && batch.some((index) => answers[index]?.replyClass === 'accepted')) {
            for (const index of queue) skipped.add(index);
            queue = [];
          }
        }
        attempt.end(session, reusable ? 'park' : 'quit');
        pending = [...unsettled, ...queue].sort((a, b) => a - b);
        continue hosts;
      } catch (error) {
        if (session) attempt.end(session, 'close');
        if (!(error instanceof SmtpError)) throw error;
        if (error.kind === 'aborted') {
          aborted = true;
          break hosts;
        }
        // Dead at its first command (hung up, or dropped silently on the way): a new session may answer.
        const unreachable = error.kind === 'connect' || error.kind === 'connect_timeout';
        if (reset === 'reused' && !unreachable && error.kind !== 'tls' && !staleRetried) {
          staleRetried = true;
          next--;
          continue;
        }
        attempt.note(unreachable ? 'no_connection' : error.kind === 'tls' ? 'tls_failed' : 'timeout', host.exchange);
        // A refused connection may succeed on the host's next address; anything else moves on.
        if (error.kind !== 'connect') continue hosts;
      }
    }
  }
  // The made-up address matters only beside an address a server took (no such user says enough).
  if (separately && !aborted && answers.some((answer) => answer && answer.replyClass !== 'no_such_user')) {
    const { host, address, plain } = separately;
    catchAll = await probeSeparately(attempt, host, address, plain, mail, separately.decoy);
  }

  const { sessions, roundTrips } = attempt;
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
        sessions,
        roundTrips,
      };
    }
    if (skipped.has(index))
      return {
        definite: false,
        replyClass: null,
        failure: 'skipped',
        reply: null,
        host: null,
        catchAll,
        sessions,
        roundTrips,
      };
    const own = new Attempt(options);
    own.failures = [...attempt.failures, ...(refusals.get(index) ?? [])];
    // Cut off by the deadline: what the servers had said so far is not why there is no answer.
    return { ...summarise(own, aborted ? 'timeout' : null), sessions, roundTrips };
  });
  return { results, sessions, roundTrips };
}
