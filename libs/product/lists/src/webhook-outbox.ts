import type { DataSource, EntityManager } from 'typeorm';
import type { WebhookDeliveryEntity, WebhookStatus } from '@mailguard/db';
import type { Outbound } from '@mailguard/net';
import { deliverWebhook } from './webhook';

/**
 * Attempts per delivery; the delays between them double from WEBHOOK_RETRY_SECONDS (30 s: 30 s,
 * 1 min, … 2 h 8 min, more than four hours in all) before the delivery is marked failed.
 */
export const WEBHOOK_ATTEMPTS = 10;
/**
 * How long a claimed attempt keeps its delivery from other senders: longer than an attempt may take
 * (its 10 s timeout), so a sender that dies in the middle of one leaves it due again after this.
 */
const LEASE_SECONDS = 60;
/** Deliveries one sender claims, and sends side by side, at a time. */
const CLAIM_BATCH = 10;
const MAX_ERROR_LENGTH = 300;
const MAX_POLL_MS = 5_000;

/** Where a finished list's webhook stands, on the list object (null before the list ends or without a URL). */
export interface WebhookState {
  status: WebhookStatus;
  attempts: number;
  lastAttemptAt: string | null;
  /** When the next attempt is due; null once delivered or failed. */
  nextAttemptAt: string | null;
  lastError: string | null;
  deliveredAt: string | null;
}

export function webhookState(delivery: WebhookDeliveryEntity | null | undefined): WebhookState | null {
  if (!delivery) return null;
  return {
    status: delivery.status,
    attempts: delivery.attempts,
    lastAttemptAt: delivery.lastAttemptAt?.toISOString() ?? null,
    nextAttemptAt: delivery.status === 'pending' ? delivery.nextAttemptAt.toISOString() : null,
    lastError: delivery.lastError,
    deliveredAt: delivery.deliveredAt?.toISOString() ?? null,
  };
}

/**
 * Writes a finished list's delivery, due now, in the transaction that finishes the list: the list
 * ends and is owed its webhook together, once (a second call for the list changes nothing).
 */
export async function addDelivery(manager: EntityManager, listId: string, url: string, body: string): Promise<void> {
  await manager.query(
    'INSERT INTO webhook_deliveries (list_id, url, body) VALUES ($1, $2, $3) ON CONFLICT (list_id) DO NOTHING',
    [listId, url, body],
  );
}

/** The delay before attempt `attempt + 1`, after attempt `attempt` (from 1) failed. */
export function retryDelayMs(attempt: number, baseMs: number): number {
  return baseMs * 2 ** (attempt - 1);
}

interface Claimed {
  list_id: string;
  url: string;
  body: string;
  attempts: number;
  /** null: the list's account is gone (the list with it, by the time the row is read again). */
  secret: string | null;
}

export interface SendReport {
  delivered: number;
  retrying: number;
  failed: number;
}

export type AttemptOutcome = keyof SendReport;

/** Told of each attempt once its outcome is recorded (metrics, and a log line when a delivery fails for good). */
export type AttemptObserver = (outcome: AttemptOutcome, attempt: { listId: string; error: string | null }) => void;

/**
 * The webhook outbox in Postgres (PGlite included): senders in any number of processes claim the
 * deliveries that are due (a lease: attempts + 1, due again only after LEASE_SECONDS), POST them
 * signed, and record the outcome against the attempt they claimed, so a late answer never
 * overwrites a newer attempt's. Delivery is at least once: a sender killed after the receiver's
 * 2xx and before the record sends again after the lease (receivers may dedupe on the list's id).
 */
export class WebhookOutbox {
  constructor(
    private readonly dataSource: () => DataSource,
    private readonly outbound: Outbound,
    private readonly retryMs: number,
    private readonly observe: AttemptObserver = () => undefined,
  ) {}

  /** Sends every delivery that is due (or only `listId`'s), a batch at a time, until none is left. */
  async sendDue(listId: string | null = null): Promise<SendReport> {
    const report: SendReport = { delivered: 0, retrying: 0, failed: 0 };
    for (;;) {
      const claimed = await this.claim(listId);
      const outcomes = await Promise.all(claimed.map((delivery) => this.attempt(delivery)));
      for (const outcome of outcomes) report[outcome]++;
      if (claimed.length < CLAIM_BATCH) return report;
    }
  }

  /**
   * How often a sender looks for due retries: a first attempt is sent when its list ends (the
   * `webhook.deliver` job), the poll only has to be finer than the retries' delays.
   */
  get pollMs(): number {
    return Math.min(this.retryMs, MAX_POLL_MS);
  }

  private async claim(listId: string | null): Promise<Claimed[]> {
    // An UPDATE … RETURNING answers [rows, affected] through TypeORM.
    const [claimed] = await this.dataSource().query<[Claimed[], number]>(
      `WITH due AS (
         SELECT list_id FROM webhook_deliveries
         WHERE status = 'pending' AND next_attempt_at <= now() AND ($1::text IS NULL OR list_id = $1)
         ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED
       )
       UPDATE webhook_deliveries d
       SET attempts = d.attempts + 1, last_attempt_at = now(), next_attempt_at = now() + make_interval(secs => $3)
       FROM due WHERE d.list_id = due.list_id
       RETURNING d.list_id, d.url, d.body, d.attempts,
         (SELECT a.webhook_secret FROM lists l JOIN accounts a ON a.id = l.account_id WHERE l.id = d.list_id) AS secret`,
      [listId, CLAIM_BATCH, LEASE_SECONDS],
    );
    return claimed;
  }

  private async attempt(delivery: Claimed): Promise<AttemptOutcome> {
    let error: string | null = null;
    try {
      if (delivery.secret === null) throw new Error('the list is gone');
      await deliverWebhook(delivery.url, delivery.body, delivery.secret, this.outbound);
    } catch (cause) {
      error = (cause instanceof Error ? cause.message : String(cause)).slice(0, MAX_ERROR_LENGTH);
    }
    const outcome = error === null ? 'delivered' : delivery.attempts >= WEBHOOK_ATTEMPTS ? 'failed' : 'retrying';
    const [, recorded] = await this.dataSource().query<[unknown[], number]>(
      `UPDATE webhook_deliveries SET
         status = CASE WHEN $3::text = 'retrying' THEN 'pending' ELSE $3::text END,
         last_error = $4,
         delivered_at = CASE WHEN $3::text = 'delivered' THEN now() END,
         next_attempt_at = CASE WHEN $3::text = 'retrying' THEN now() + make_interval(secs => $5) ELSE next_attempt_at END
       WHERE list_id = $1 AND attempts = $2 AND status = 'pending'`,
      [delivery.list_id, delivery.attempts, outcome, error, retryDelayMs(delivery.attempts, this.retryMs) / 1000],
    );
    // Not recorded: the lease ran out and another sender's attempt is the delivery's now.
    if (recorded > 0) this.observe(outcome, { listId: delivery.list_id, error });
    return outcome;
  }
}
