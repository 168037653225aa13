import type { SmtpSession } from './client';
import type { SessionGate, SlotLease } from './session-gate';

/** Probes one session serves before it says goodbye: a server may count what a connection asks. */
export const PROBES_PER_SESSION = 100;
/** How often the gate is asked whether a prober waits for a slot that a parked session holds. */
export const CONTENTION_CHECK_MS = 250;

interface Parked {
  host: string;
  session: SmtpSession;
  lease: SlotLease;
  timer: NodeJS.Timeout;
}

/** A parked session, back in use. */
export interface PooledSession {
  session: SmtpSession;
  lease: SlotLease;
}

/**
 * Greeted sessions kept open between probes, at most one per MX address and `capacity` in all, for
 * `idleMs` each: the next probe there skips connect, banner, EHLO and STARTTLS, and begins with
 * RSET pipelined with its MAIL and RCPTs. A parked session keeps its slot, so the per-MX cap counts
 * it. It is closed (QUIT, and its slot given back) when its idle time is up; when its host becomes
 * unwelcome — a prober of any process waits for a slot there (first come, first served: the
 * gate's queue goes first), or the host is cooling down — as found when it is parked, when it is
 * taken and every CONTENTION_CHECK_MS in between; when it has served PROBES_PER_SESSION probes;
 * when the pool is full or closed. It drops out by itself when the server hangs up meanwhile.
 * `idleMs` 0: nothing is kept.
 */
export class SessionPool {
  private readonly parked = new Map<string, Parked>();
  private readonly uses = new WeakMap<SmtpSession, number>();
  private closed = false;
  private watch: NodeJS.Timeout | null = null;
  private taken = 0;

  constructor(
    private readonly idleMs: number,
    private readonly gate: Pick<SessionGate, 'unwelcome'>,
    private readonly capacity = 256,
  ) {}

  static key(egress: string, host: string, address: string, port: number): string {
    return `${egress}|${host}|${address}|${port}`;
  }

  /** Whether the pool asks the gate about contention now (only while a session is parked). */
  get watching(): boolean {
    return this.watch !== null;
  }

  /** Sessions parked now. */
  get size(): number {
    return this.parked.size;
  }

  /** Sessions given back to a probe since the pool was made: probes that did not connect. */
  get reused(): number {
    return this.taken;
  }

  /**
   * The session parked for `key`, ready for the probe with `signal`; null when there is none that
   * can go on, or its host is unwelcome now (then it says goodbye and the probe queues at the gate).
   */
  async take(key: string, signal?: AbortSignal): Promise<PooledSession | null> {
    const entry = this.parked.get(key);
    if (!entry) return null;
    this.remove(key, entry);
    const unwelcome = await this.gate.unwelcome([entry.host]).catch(() => new Set<string>());
    if (unwelcome.has(entry.host)) {
      entry.session.quit();
      return null;
    }
    // A session that cannot go on is closed by `unpark`, and its slot given back.
    if (!entry.session.unpark(signal)) return null;
    this.taken++;
    return { session: entry.session, lease: entry.lease };
  }

  /**
   * Keeps the session of a probe that ended well, instead of its QUIT. False when it is not kept:
   * the caller says goodbye as usual.
   */
  park(key: string, session: SmtpSession, lease: SlotLease): boolean {
    const uses = (this.uses.get(session) ?? 0) + 1;
    this.uses.set(session, uses);
    if (this.closed || this.idleMs <= 0 || !session.usable || uses >= PROBES_PER_SESSION || this.parked.has(key))
      return false;
    if (this.parked.size >= this.capacity) this.evict(this.parked.keys().next().value as string);
    lease.extend(Date.now() + this.idleMs);
    const entry: Parked = { host: lease.host, session, lease, timer: setTimeout(() => this.evict(key), this.idleMs) };
    entry.timer.unref();
    this.parked.set(key, entry);
    session.park(() => this.remove(key, entry));
    this.watch ??= setInterval(() => void this.yieldUnwelcome(), CONTENTION_CHECK_MS).unref();
    // A prober may be waiting already: it need not wait for the next check.
    void this.yieldUnwelcome([entry.host]);
    return true;
  }

  /** Lets go of the parked sessions at unwelcome hosts (of `hosts`, or of all parked). */
  private async yieldUnwelcome(
    hosts = [...new Set([...this.parked.values()].map((entry) => entry.host))],
  ): Promise<void> {
    // Unanswered (Redis away, say): the sessions go at their idle time as usual.
    const unwelcome = await this.gate.unwelcome(hosts).catch(() => new Set<string>());
    for (const [key, entry] of [...this.parked]) if (unwelcome.has(entry.host)) this.evict(key);
  }

  /** A probe was refused or slowed down at `host` (through `egress` only, when given): its parked sessions there go too. */
  leave(host: string, egress?: string): void {
    for (const [key, entry] of [...this.parked])
      if (entry.host === host && (egress === undefined || key.startsWith(`${egress}|`))) this.evict(key);
  }

  /** Says goodbye to every parked session and keeps none from now on (shutdown). */
  close(): void {
    this.closed = true;
    for (const [key, entry] of [...this.parked]) {
      this.evict(key);
      // At once, not when the server has closed: the process may be about to lose its Redis connection.
      entry.lease.release();
    }
  }

  private remove(key: string, entry: Parked): void {
    clearTimeout(entry.timer);
    if (this.parked.get(key) === entry) this.parked.delete(key);
    if (this.parked.size === 0 && this.watch) {
      clearInterval(this.watch);
      this.watch = null;
    }
  }

  private evict(key: string): void {
    const entry = this.parked.get(key);
    if (!entry) return;
    this.remove(key, entry);
    // The QUIT's close ends the connection, and the lease with it.
    entry.session.quit();
  }
}
