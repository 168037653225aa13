/**
 * Politeness towards mail servers, shared by every prober: at most `limit` concurrent SMTP sessions
 * per MX host (`acquire` waits while the host is at its limit and resolves with the session's lease
 * on a slot), and a cool-down during which a host is not contacted at all (after it said "too many
 * connections" or asked us to slow down).
 *
 * A lease belongs to one SMTP session and is given back exactly once, when that connection ends.
 * It also runs out by itself a little after the session's deadline (every session is aborted by
 * then), so a lease that a bug forgot delays its host by seconds instead of darkening it for good;
 * such an expiry is reported to the observers (a warning naming the host).
 */
export interface SessionGate {
  acquire(host: string, request: SlotRequest): Promise<SlotLease>;
  coolDown(host: string, ms: number, reason: CoolDownReason): Promise<void>;
  /**
   * Those of `hosts` where a session kept open between probes must not stay: a prober (of any
   * process) waits for a slot there, or the host is cooling down.
   */
  unwelcome(hosts: string[]): Promise<Set<string>>;
  /** Slots and sessions this process holds now, and the cool-downs it knows of (gauges). */
  snapshot(): GateSnapshot;
  observe(observer: GateObserver): void;
}

export interface SlotRequest {
  /** Epoch ms by which the session will have ended: it is aborted at its check's deadline. */
  until: number;
  /** Gives up waiting for a slot (the check's deadline). */
  signal?: AbortSignal;
}

export interface SlotLease {
  readonly host: string;
  /** The session's connection is up: it counts as an open session from now on. */
  connected(): void;
  /** Gives the slot back; only the first call counts. */
  release(): void;
  /** The session goes on (kept open for the next probe, or taken by one): the lease now ends at `until`. */
  extend(until: number): void;
}

export interface GateSnapshot {
  hosts: Array<{ host: string; slotsHeld: number; sessionsOpen: number }>;
  coolDowns: Array<{ host: string; reason: CoolDownReason }>;
}

export interface GateObserver {
  /** A slot was granted after waiting `ms` (0 when one was free at once). */
  waited?(host: string, ms: number): void;
  /** A lease outlived its session's deadline and was taken back: a session never gave it back. */
  expired?(host: string): void;
}

/** A host asked us to slow down (a refusal of us is the egress's: see egress.ts). */
export type CoolDownReason = 'busy';

/** The host is cooling down: no session is opened to it until then. */
export class CoolingDownError extends Error {
  constructor(
    readonly host: string,
    readonly reason: CoolDownReason,
  ) {
    super(`${host} is cooling down (${reason})`);
    this.name = 'CoolingDownError';
  }
}

export class GateAbortedError extends Error {
  constructor() {
    super('gave up waiting for a session slot');
    this.name = 'GateAbortedError';
  }
}

/** How long after its deadline a lease is presumed forgotten: an aborted session closes within ticks. */
export const LEASE_GRACE_MS = 5_000;

interface Held {
  connected: boolean;
}

/**
 * The leases one process holds, whichever gate granted them: each given back once (by its session
 * or by its expiry timer), counted per host for the gauges, and watched by the observers.
 */
export class LeaseBook {
  private readonly held = new Map<string, Set<Held>>();
  private readonly cooling = new Map<string, { until: number; reason: CoolDownReason }>();
  private readonly observers: GateObserver[] = [];
  private readonly idleWaiters: Array<() => void> = [];

  constructor(private readonly graceMs = LEASE_GRACE_MS) {}

  observe(observer: GateObserver): void {
    this.observers.push(observer);
  }

  waited(host: string, ms: number): void {
    for (const observer of this.observers) observer.waited?.(host, ms);
  }

  /**
   * Records a granted slot; `giveBack` runs once, on release or expiry. `extended` hears of each
   * new end (epoch ms, grace included) while the lease is held.
   */
  grant(host: string, until: number, giveBack: () => void, extended?: (end: number) => void): SlotLease {
    const entry: Held = { connected: false };
    const leases = this.held.get(host) ?? new Set<Held>();
    leases.add(entry);
    this.held.set(host, leases);
    let released = false;
    const finish = () => {
      if (released) return false;
      released = true;
      clearTimeout(timer);
      leases.delete(entry);
      if (leases.size === 0) this.held.delete(host);
      giveBack();
      if (this.held.size === 0) for (const wake of this.idleWaiters.splice(0)) wake();
      return true;
    };
    const expire = (ends: number) => {
      const timer = setTimeout(
        () => {
          if (finish()) for (const observer of this.observers) observer.expired?.(host);
        },
        Math.max(0, ends - Date.now()),
      );
      // An outstanding lease must not keep a finished CLI run alive.
      timer.unref();
      return timer;
    };
    let timer = expire(until + this.graceMs);
    return {
      host,
      connected: () => {
        if (!released) entry.connected = true;
      },
      release: () => void finish(),
      extend: (next) => {
        if (released) return;
        clearTimeout(timer);
        timer = expire(next + this.graceMs);
        extended?.(next + this.graceMs);
      },
    };
  }

  /** Milliseconds a lease granted now until `until` may be kept (for a shared store's own expiry). */
  ttl(until: number): number {
    return Math.max(1, until + this.graceMs - Date.now());
  }

  /** Resolves once this process holds no lease at all. */
  idle(): Promise<void> {
    if (this.held.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  noteCoolDown(host: string, ms: number, reason: CoolDownReason): void {
    // Monotonic: a wall-clock jump must not stretch a cool-down (and darken the host) or end it early.
    this.cooling.set(host, { until: performance.now() + ms, reason });
  }

  /** The cool-down in force for a host, as this process knows it (expired ones are forgotten). */
  coolDownOf(host: string): CoolDownReason | null {
    const cooling = this.cooling.get(host);
    if (!cooling) return null;
    if (cooling.until > performance.now()) return cooling.reason;
    this.cooling.delete(host);
    return null;
  }

  snapshot(): GateSnapshot {
    const hosts = [...this.held].map(([host, leases]) => ({
      host,
      slotsHeld: leases.size,
      sessionsOpen: [...leases].filter((lease) => lease.connected).length,
    }));
    const coolDowns = [...this.cooling.keys()].flatMap((host) => {
      const reason = this.coolDownOf(host);
      return reason ? [{ host, reason }] : [];
    });
    return { hosts, coolDowns };
  }
}

/** The gate of one process (embedded mode, the CLI). */
export class MemorySessionGate implements SessionGate {
  private readonly active = new Map<string, number>();
  private readonly waiting = new Map<string, Array<() => void>>();
  readonly leases: LeaseBook;

  constructor(
    private readonly limit: number,
    graceMs = LEASE_GRACE_MS,
  ) {
    this.leases = new LeaseBook(graceMs);
  }

  observe(observer: GateObserver): void {
    this.leases.observe(observer);
  }

  snapshot(): GateSnapshot {
    return this.leases.snapshot();
  }

  async coolDown(host: string, ms: number, reason: CoolDownReason): Promise<void> {
    this.leases.noteCoolDown(host, ms, reason);
  }

  async unwelcome(hosts: string[]): Promise<Set<string>> {
    return new Set(
      hosts.filter((host) => (this.waiting.get(host)?.length ?? 0) > 0 || this.leases.coolDownOf(host) !== null),
    );
  }

  async acquire(host: string, { until, signal }: SlotRequest): Promise<SlotLease> {
    const cooling = this.leases.coolDownOf(host);
    if (cooling) throw new CoolingDownError(host, cooling);
    const started = performance.now();
    while ((this.active.get(host) ?? 0) >= this.limit) {
      if (signal?.aborted) throw new GateAbortedError();
      await new Promise<void>((resolve, reject) => {
        const queue = this.waiting.get(host) ?? [];
        const wake = () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        };
        const onAbort = () => {
          queue.splice(queue.indexOf(wake), 1);
          if (queue.length === 0) this.waiting.delete(host);
          reject(new GateAbortedError());
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        queue.push(wake);
        this.waiting.set(host, queue);
      });
    }
    this.active.set(host, (this.active.get(host) ?? 0) + 1);
    this.leases.waited(host, performance.now() - started);
    return this.leases.grant(host, until, () => {
      const left = (this.active.get(host) ?? 1) - 1;
      if (left > 0) this.active.set(host, left);
      else this.active.delete(host);
      const queue = this.waiting.get(host);
      const next = queue?.shift();
      if (queue?.length === 0) this.waiting.delete(host);
      next?.();
    });
  }
}
