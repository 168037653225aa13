/**
 * Politeness towards mail servers, shared by every prober: at most `limit` concurrent SMTP sessions
 * per MX host (`acquire` waits while the host is at its limit and resolves with the function that
 * gives the slot back), and a cool-down during which a host is not contacted at all (after it said
 * "too many connections" or that our address is blocked).
 */
export interface SessionGate {
  acquire(host: string, signal?: AbortSignal): Promise<() => void>;
  coolDown(host: string, ms: number, reason: CoolDownReason): Promise<void>;
}

export type CoolDownReason = 'busy' | 'blocked';

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

/** The gate of one process (embedded mode, the CLI). */
export class MemorySessionGate implements SessionGate {
  private readonly active = new Map<string, number>();
  private readonly cooling = new Map<string, { until: number; reason: CoolDownReason }>();
  private readonly waiting = new Map<string, Array<() => void>>();
  /** How often a caller had to wait for a slot (a metric). */
  waits = 0;

  constructor(private readonly limit: number) {}

  async coolDown(host: string, ms: number, reason: CoolDownReason): Promise<void> {
    this.cooling.set(host, { until: Date.now() + ms, reason });
  }

  async acquire(host: string, signal?: AbortSignal): Promise<() => void> {
    const cooling = this.cooling.get(host);
    if (cooling && cooling.until > Date.now()) throw new CoolingDownError(host, cooling.reason);
    while ((this.active.get(host) ?? 0) >= this.limit) {
      this.waits++;
      if (signal?.aborted) throw new GateAbortedError();
      await new Promise<void>((resolve, reject) => {
        const queue = this.waiting.get(host) ?? [];
        const wake = () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        };
        const onAbort = () => {
          queue.splice(queue.indexOf(wake), 1);
          reject(new GateAbortedError());
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        queue.push(wake);
        this.waiting.set(host, queue);
      });
    }
    this.active.set(host, (this.active.get(host) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.active.get(host) ?? 1) - 1;
      if (left > 0) this.active.set(host, left);
      else this.active.delete(host);
      const next = this.waiting.get(host)?.shift();
      if (this.waiting.get(host)?.length === 0) this.waiting.delete(host);
      next?.();
    };
  }
}
