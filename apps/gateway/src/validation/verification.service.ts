import { Inject, Injectable } from '@nestjs/common';
import { resultKey, type ResultCache } from '@mailguard/cache';
import { APP_CONFIG, type AppConfig } from '@mailguard/config';
import { ENGINE, RESULT_CACHE } from '@mailguard/core';
import { checksCost, checksRefund, CreditLedger } from '@mailguard/credits';
import type { UsageKind } from '@mailguard/db';
import type { VerificationEngine, VerificationResult } from '@mailguard/engine';
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
 * A cached answer as its JSON text (libs/cache `getAnswer`): the single check's fast path sends
 * these bytes as they are; anything else serialises it through `toJSON`, to the same bytes.
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

  /** When a request that arrives now must be answered (API.md §8): the same for every address of a batch. */
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
    return this.store.claim(request, this.engine.conclude(this.engine.inspectLocally(request.email), null));
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
  private async checkOne(
    email: string,
    accountId: string,
    kind: UsageKind,
    deadlineAt: number,
    knownMiss: boolean,
  ): Promise<VerificationResult> {
    const request = this.request(email, accountId, kind, deadlineAt);
    if (knownMiss) return this.run(request);
    const result = await this.fromCache(email);
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
    answer: Promise<string | null> = this.cache.getAnswer(key),
  ): Promise<{ json: string; balance: number } | null> {
    const json = await answer;
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
    const ref = newId(kind === 'single' ? 'chk' : kind === 'widget' ? 'wgt' : 'bat');
    const label =
      kind === 'single' ? 'single check' : kind === 'widget' ? 'widget check' : `batch check (${addresses} addresses)`;
    return { ref, label };
  }

  /**
   * The cached answer of an address as its JSON text, not yet counted as a hit or miss: read ahead
   * by the single check's fast path while the key's rate limit is counted, and handed to
   * `checkSingle` once the request is admitted (or dropped unseen).
   */
  readAnswer(email: string): Promise<string | null> {
    return this.cache.getAnswer(resultKey(email));
  }

  /**
   * One address (REST's single check): a cached answer comes back as its JSON text, unparsed.
   * `answer`: this address's `readAnswer`, when it was read ahead.
   */
  async checkSingle(accountId: string, email: string, answer?: Promise<string | null>): Promise<SingleOutcome> {
    const deadlineAt = this.deadline();
    const key = resultKey(email);
    const { ref, label } = this.billing('single', 1);
    const answered = await this.cachedSingle(accountId, key, 'single', label, ref, answer);
    if (answered) return { result: new CachedAnswer(answered.json), balance: answered.balance };
    const { results, balance } = await this.checkAll(accountId, [email], [key], 'single', { ref, label, deadlineAt });
    return { result: results[0], balance };
  }

  async check(accountId: string, emails: string[], kind: UsageKind): Promise<CheckOutcome> {
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

  /** Charges the addresses up front and checks each (one cached already known to miss when alone). */
  private async checkAll(
    accountId: string,
    emails: string[],
    keys: string[],
    kind: UsageKind,
    { ref, label, deadlineAt }: { ref: string; label: string; deadlineAt: number },
  ): Promise<CheckOutcome> {
    const first = new Map<string, string>();
    emails.forEach((email, index) => {
      if (!first.has(keys[index])) first.set(keys[index], email);
    });
    const unique = [...first.keys()];
    const cost = checksCost(unique.length);
    const charged = await this.ledger.charge(accountId, cost, label, ref);
    if (charged === null) throw await this.insufficient(accountId, cost);

    this.metrics.credits.inc({ direction: 'charged' }, cost);
    const byKey = new Map<string, VerificationResult>();
    let next = 0;
    try {
      await Promise.all(
        Array.from({ length: Math.min(BATCH_CONCURRENCY, unique.length) }, async () => {
          while (next < unique.length) {
            const key = unique[next++];
            byKey.set(
              key,
              await this.checkOne(first.get(key) as string, accountId, kind, deadlineAt, unique.length === 1),
            );
          }
        }),
      );
    } catch (error) {
      // Nothing answered: nothing is paid for.
      await this.ledger.refund(accountId, cost, 'refund: the check failed', ref);
      this.metrics.credits.inc({ direction: 'refunded' }, cost);
      throw error;
    }

    const refund = checksRefund([...byKey.values()]);
    if (refund > 0) this.metrics.credits.inc({ direction: 'refunded' }, refund);
    const balance =
      refund > 0 ? await this.ledger.refund(accountId, refund, 'refund: results with reachable unknown', ref) : charged;
    return { results: keys.map((key) => byKey.get(key) as VerificationResult), balance };
  }
}
