import { Inject, Injectable } from '@nestjs/common';
import { resultKey, type ResultCache } from '@mailguard/cache';
import { APP_CONFIG, type AppConfig } from '@mailguard/config';
import { ENGINE, RESULT_CACHE } from '@mailguard/core';
import { checksCost, checksRefund, CreditLedger, USAGE_REF_PREFIX } from '@mailguard/credits';
import type { ChargeKind, UsageKind } from '@mailguard/db';
import type { VerificationEngine, VerificationResult } from '@mailguard/engine';
import { printable } from '@mailguard/email';
import { AppError } from '@mailguard/errors';
import { newId } from '@mailguard/keys';
import { FeedbackStore, type Outcome } from '@mailguard/feedback';
import { Metrics } from '@mailguard/metrics';
import { ResultStore } from '@mailguard/pipeline';
import { CHECK_PIPELINE, type CheckPipeline, type CheckRequest } from '@mailguard/queue';

export interface CheckOutcome {
  results: VerificationResult[];
  balance: number;
}

/**
 * A cached answer as its JSON text (libs/platform/cache `getAnswer`): the gateway's reply serialiser
 * sends these bytes as they are; anything else serialises it through `toJSON`, to the same bytes.
 */
export class CachedAnswer {
  constructor(readonly json: string) {}

  toJSON(): VerificationResult {
    return JSON.parse(this.json) as VerificationResult;
  }
}

export interface SingleOutcome {
  result: VerificationResult | CachedAnswer;
  balance: number;
}

const BATCH_CONCURRENCY = 20;

/**
 * Paid checks: the credits are taken first (conditionally, so concurrent requests cannot overdraw),
 * each address comes from the cache or the pipeline, `unknown` results are refunded before the
 * answer is sent, and every check is stored under its own request id.
 */
@Injectable()
export class VerificationService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CHECK_PIPELINE) private readonly pipeline: CheckPipeline,
    @Inject(RESULT_CACHE) private readonly cache: ResultCache,
    private readonly store: ResultStore,
    @Inject(ENGINE) private readonly engine: VerificationEngine,
    private readonly ledger: CreditLedger,
    private readonly metrics: Metrics,
    private readonly feedbacks: FeedbackStore,
  ) {}

  /**
   * #3: what became of mail to a checked address. Stored for the account (and for what the
   * catch-all model learns); the address's cached result is dropped, so the next check asks again.
   */
  async feedback(accountId: string, email: string, outcome: Outcome): Promise<void> {
    const local = this.engine.inspectLocally(email);
    if (!local.syntaxValid || !local.asciiDomain) throw new AppError('bad_request', 'email is not a valid address');
    const key = resultKey(email);
    await this.feedbacks.record({
      accountId,
      email: local.email,
      key,
      domain: local.asciiDomain,
      localPart: local.localPart.toLowerCase(),
      outcome,
    });
    await this.cache.delete(key);
  }

  /** When a request that arrives now must be answered (docs/configuration.md): the same for every address of a batch. */
  private deadline(): number {
    return Date.now() + this.config.checks.deadlineMs;
  }

  private request(email: string, accountId: string | null, kind: UsageKind | null, deadlineAt: number): CheckRequest {
    return { requestId: newId('ver'), email, deadlineAt, accountId, kind };
  }

  /**
   * One address through the pipeline. Past the deadline the answer is what is known without the
   * network, with `reachable: unknown` — unless the pipeline finished meanwhile. An address of a
   * batch whose turn comes after the deadline is not sent at all.
   */
  private async run(request: CheckRequest): Promise<VerificationResult> {
    const result = Date.now() < request.deadlineAt ? await this.pipeline.verify(request) : null;
    if (result) return result;
    return this.store.claim(request, this.engine.concludeLocally(request.email));
  }

  /** A check without an account (sign-up's own check of the address): not charged, not stored. */
  checkUnbilled(email: string): Promise<VerificationResult> {
    return this.run(this.request(email, null, null, this.deadline()));
  }

  /** The cached answer for an address, marked as such, or null; counted for the hit ratio. */
  private async fromCache(email: string): Promise<VerificationResult | null> {
    const cached = await this.cache.get(resultKey(email));
    this.metrics.cache.inc({ outcome: cached ? 'hit' : 'miss' });
    return cached ? { ...cached, cached: true } : null;
  }

  /** The widget's public tier: no account, so nothing is charged or stored; a cached answer is reused. */
  async checkAnonymous(email: string): Promise<VerificationResult> {
    return (await this.fromCache(email)) ?? this.run(this.request(email, null, null, this.deadline()));
  }

  /** `knownMiss`: the cache was just asked for this address (a single check) and had nothing. */
  private async checkOne(request: CheckRequest, knownMiss: boolean): Promise<VerificationResult> {
    if (knownMiss) return this.run(request);
    const result = await this.fromCache(request.email);
    if (!result) return this.run(request);
    await this.store.record(request, result);
    return result;
  }

  /**
   * A single address whose answer is cached: one statement charges it and records its usage, the
   * answer's JSON text stored as it is served (never parsed here).
   */
  private async cachedSingle(
    accountId: string,
    key: string,
    kind: UsageKind,
    label: string,
    ref: string,
  ): Promise<{ json: string; balance: number } | null> {
    const json = await this.cache.getAnswer(key);
    this.metrics.cache.inc({ outcome: json ? 'hit' : 'miss' });
    if (json === null) return null;
    const balance = await this.ledger.chargeOne(accountId, label, ref, { id: newId('ver'), kind, resultJson: json });
    if (balance === null) throw await this.insufficient(accountId, 1);
    this.metrics.credits.inc({ direction: 'charged' });
    return { json, balance };
  }

  private async insufficient(accountId: string, cost: number): Promise<AppError> {
    const { balance } = await this.ledger.balance(accountId);
    return new AppError(
      'insufficient_credits',
      `Insufficient credits: this request costs ${cost} and the balance is ${balance}`,
    );
  }

  /** What a check's charge is called in the ledger, and its reference. */
  private billing(kind: UsageKind, addresses: number): { ref: string; label: string } {
    // The ref's prefix names the kind of usage its charge and refund count as (docs/api.md#usage).
    const ref = newId(USAGE_REF_PREFIX[kind]);
    const label =
      kind === 'single' ? 'single check' : kind === 'widget' ? 'widget check' : `batch check (${addresses} addresses)`;
    return { ref, label };
  }

  /** One address (REST's single check): a cached answer comes back as its JSON text, unparsed. */
  async checkSingle(accountId: string, email: string): Promise<SingleOutcome> {
    const deadlineAt = this.deadline();
    const key = resultKey(email);
    const { ref, label } = this.billing('single', 1);
    const answered = await this.cachedSingle(accountId, key, 'single', label, ref);
    if (answered) return { result: new CachedAnswer(answered.json), balance: answered.balance };
    const { results, balance } = await this.checkAll(accountId, [email], [key], 'single', { ref, label, deadlineAt });
    return { result: results[0], balance };
  }

  async check(accountId: string, emails: string[], kind: ChargeKind): Promise<CheckOutcome> {
    const deadlineAt = this.deadline();
    // Each address is parsed once: its key serves deduplication, the cache and the answer's order.
    const keys = emails.map(resultKey);
    const unique = new Set(keys);
    const { ref, label } = this.billing(kind, unique.size);
    if (unique.size === 1) {
      const answered = await this.cachedSingle(accountId, keys[0], kind, label, ref);
      if (answered) {
        const result = JSON.parse(answered.json) as VerificationResult;
        return { results: emails.map(() => result), balance: answered.balance };
      }
    }
    return this.checkAll(accountId, emails, keys, kind, { ref, label, deadlineAt });
  }

  /**
   * Charges the addresses up front and checks each (one cached already known to miss when alone).
   * The charge stays open until it is settled here, refunds and all; a charge this process never
   * settles (it stopped on the way) is the charge sweep's once the deadline and its margin have passed.
   */
  private async checkAll(
    accountId: string,
    emails: string[],
    keys: string[],
    kind: ChargeKind,
    { ref, label, deadlineAt }: { ref: string; label: string; deadlineAt: number },
  ): Promise<CheckOutcome> {
    const requests = new Map<string, CheckRequest>();
    emails.forEach((email, index) => {
      if (!requests.has(keys[index])) requests.set(keys[index], this.request(email, accountId, kind, deadlineAt));
    });
    const unique = [...requests.entries()];
    const cost = checksCost(unique.length);
    const charged = await this.ledger.charge(accountId, cost, label, ref, {
      kind,
      // As the answer would store it: jsonb holds no NUL nor lone surrogate, which a syntax failure may carry.
      checks: unique.map(([, { requestId, email }]) => ({ id: requestId, email: printable(email) })),
      dueInMs: deadlineAt - Date.now() + this.config.checks.chargeSweepMarginMs,
    });
    if (charged === null) throw await this.insufficient(accountId, cost);

    this.metrics.credits.inc({ direction: 'charged' }, cost);
    const byKey = new Map<string, VerificationResult>();
    let next = 0;
    try {
      await Promise.all(
        Array.from({ length: Math.min(BATCH_CONCURRENCY, unique.length) }, async () => {
          while (next < unique.length) {
            const [key, request] = unique[next++];
            byKey.set(key, await this.checkOne(request, unique.length === 1));
          }
        }),
      );
    } catch (error) {
      // Nothing answered: nothing is paid for.
      await this.settle(accountId, ref, cost, 'refund: the check failed');
      throw error;
    }

    const refund = checksRefund([...byKey.values()]);
    const balance = await this.settle(accountId, ref, refund, 'refund: results with reachable unknown');
    return { results: keys.map((key) => byKey.get(key) as VerificationResult), balance };
  }

  /** Closes the charge with its refund, counted unless the charge sweep took it first. The balance after. */
  private async settle(accountId: string, ref: string, refund: number, reason: string): Promise<number> {
    const { closed, balance } = await this.ledger.settle(accountId, ref, refund, reason);
    if (closed && refund > 0) this.metrics.credits.inc({ direction: 'refunded' }, refund);
    return balance;
  }
}
