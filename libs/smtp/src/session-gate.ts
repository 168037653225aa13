/**
 * Politeness: at most `limit` concurrent SMTP sessions per MX host. `acquire` resolves with the
 * function that gives the slot back; it waits (in order) while the host is at its limit.
 */
export interface SessionGate {
  acquire(host: string, signal?: AbortSignal): Promise<() => void>;
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
  private readonly waiting = new Map<string, Array<() => void>>();
  /** How often a caller had to wait for a slot (a metric). */
  waits = 0;

  constructor(private readonly limit: number) {}

  async acquire(host: string, signal?: AbortSignal): Promise<() => void> {
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
