import type { BeforeApplicationShutdown, OnApplicationBootstrap } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { sweptRefund, type CreditLedger, type DueCharge } from '@mailguard/credits';
import type { VerificationEngine } from '@mailguard/engine';
import type { ResultStore } from './result-store';

/** The longest the sweep sleeps: a charge another process opened and never settled waits at most this past its due time. */
const CHARGE_SWEEP_MAX_MS = 60_000;
/** The shortest: a due charge another sweep or its gateway holds right now is looked at again this much later. */
const CHARGE_SWEEP_MIN_MS = 1_000;

/** The ledger reason of the sweep's refunds. */
export const SWEPT_REASON = 'refund: the service stopped before answering';

/** One open charge the sweep settled, and what it gave back (0: its answers had all landed). */
export interface SweptCharge {
  charge: DueCharge;
  refunded: number;
}

export interface ChargeSweepOptions {
  dataSource: () => DataSource;
  ledger: CreditLedger;
  store: ResultStore;
  engine: Pick<VerificationEngine, 'concludeLocally'>;
  onSwept(swept: SweptCharge): void;
  onError(error: unknown): void;
}

/**
 * Settles the charges their gateway never settled (it stopped between the charge and the answer:
 * the job never queued, or lost with the in-process queue, or the answer never sent), once they are
 * due: the check's deadline plus the margin have passed. Each in one transaction: the charge is
 * taken (no other sweep can take it, and a late `settle` finds it gone), each of its checks still
 * without a stored answer is stored as the gateway would have at the deadline (`unknown`, so a
 * late answer from a worker is dropped), and what the stored answers do not cost is refunded.
 * Safe in every gateway at once. It runs at start, then when the next open charge is due (at most
 * CHARGE_SWEEP_MAX_MS later), until the process shuts down.
 */
export class ChargeSweep implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(private readonly options: ChargeSweepOptions) {}

  onApplicationBootstrap(): void {
    this.schedule(0);
  }

  /** Stops the timer, and waits for a sweep under way (the database closes after this). */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  /** Whether a sweep is scheduled (for the tests of its release). */
  get scheduled(): boolean {
    return this.timer !== null;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.sweep()
        .then((next) => this.schedule(next))
        .finally(() => (this.running = null));
    }, delayMs);
  }

  /** Settles every due charge; resolves with the time until the next sweep. */
  async sweep(): Promise<number> {
    try {
      while (!this.stopped) {
        const swept = await this.settleOne();
        if (!swept) break;
        this.options.onSwept(swept);
      }
      const due = await this.options.ledger.nextDue();
      return due === null ? CHARGE_SWEEP_MAX_MS : Math.min(Math.max(due, CHARGE_SWEEP_MIN_MS), CHARGE_SWEEP_MAX_MS);
    } catch (error) {
      this.options.onError(error);
      return CHARGE_SWEEP_MAX_MS;
    }
  }

  /** The oldest due charge, settled in one transaction; null when none is due. */
  settleOne(): Promise<SweptCharge | null> {
    const { dataSource, ledger, store, engine } = this.options;
    return dataSource().transaction(async (runner) => {
      const charge = await ledger.takeDue(runner);
      if (!charge) return null;
      const claims = charge.checks.map(({ id, email }) => ({
        request: { requestId: id, email, deadlineAt: Date.now(), accountId: charge.accountId, kind: charge.kind },
        provisional: engine.concludeLocally(email),
      }));
      const refund = sweptRefund(charge, await store.claimLost(claims, runner));
      const refunded = refund > 0 && (await ledger.refund(charge.accountId, refund, SWEPT_REASON, charge.ref, runner));
      return { charge, refunded: refunded ? refund : 0 };
    });
  }
}
