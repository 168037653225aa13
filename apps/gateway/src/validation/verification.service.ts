import { Inject, Injectable } from '@nestjs/common';
import type { ResultCache } from '@mailguard/cache';
import { APP_CONFIG, type AppConfig } from '@mailguard/config';
import { CreditLedger } from '@mailguard/credits';
import { Database, VerificationEntity, type UsageKind } from '@mailguard/db';
import { parseAddress } from '@mailguard/email';
import type { VerificationResult } from '@mailguard/engine';
import { AppError } from '@mailguard/errors';
import { newId } from '@mailguard/keys';
import type { QueueDriver } from '@mailguard/queue';
import { QUEUE, RESULT_CACHE } from '../infra.module';

export interface CheckOutcome {
  results: VerificationResult[];
  balance: number;
}

const BATCH_CONCURRENCY = 10;

/**
 * One cache entry and one charge per mailbox, however it was typed: normalised, and compared
 * without case (mail providers treat local parts case-insensitively in practice).
 */
function cacheKey(email: string): string {
  return parseAddress(email).email.toLowerCase();
}

/**
 * Paid checks: the credits are taken first (conditionally, so concurrent requests cannot overdraw),
 * the checks run through the queue (or come from the cache), `unknown` results are refunded before
 * the answer is sent, and every check is stored.
 */
@Injectable()
export class VerificationService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(QUEUE) private readonly queue: QueueDriver,
    @Inject(RESULT_CACHE) private readonly cache: ResultCache,
    private readonly ledger: CreditLedger,
    private readonly database: Database,
  ) {}

  /** A check without an account (sign-up's own check of the address): not charged, not stored. */
  checkUnbilled(email: string): Promise<VerificationResult> {
    return this.queue.run('verify.address', { email });
  }

  private async checkOne(email: string): Promise<VerificationResult> {
    const key = cacheKey(email);
    const cached = await this.cache.get(key);
    if (cached) return { ...cached, cached: true };
    const result = await this.queue.run('verify.address', { email });
    // An unknown answer is not worth keeping: the next check may get a real one.
    if (result.reachable !== 'unknown') await this.cache.set(key, result, this.config.checks.cacheTtlSeconds);
    return result;
  }

  async check(accountId: string, emails: string[], kind: UsageKind): Promise<CheckOutcome> {
    const unique = [...new Set(emails.map(cacheKey))];
    const first = new Map<string, string>();
    for (const email of emails) if (!first.has(cacheKey(email))) first.set(cacheKey(email), email);
    const ref = newId(kind === 'single' ? 'chk' : 'bat');
    const label = kind === 'single' ? 'single check' : `batch check (${unique.length} addresses)`;
    const charged = await this.ledger.charge(accountId, unique.length, label, ref);
    if (charged === null) {
      const { balance } = await this.ledger.balance(accountId);
      throw new AppError('insufficient_credits', `Insufficient credits: this request costs ${unique.length} and the balance is ${balance}`);
    }

    const byKey = new Map<string, VerificationResult>();
    let next = 0;
    try {
      await Promise.all(
        Array.from({ length: Math.min(BATCH_CONCURRENCY, unique.length) }, async () => {
          while (next < unique.length) {
            const key = unique[next++];
            byKey.set(key, await this.checkOne(first.get(key) as string));
          }
        }),
      );
    } catch (error) {
      // Nothing answered: nothing is paid for.
      await this.ledger.refund(accountId, unique.length, 'refund: the check failed', ref);
      throw error;
    }

    const unknown = [...byKey.values()].filter((result) => result.reachable === 'unknown').length;
    const balance = unknown > 0 ? await this.ledger.refund(accountId, unknown, 'refund: results with reachable unknown', ref) : charged;
    await this.database.dataSource.getRepository(VerificationEntity).insert(
      [...byKey.values()].map((result) => ({
        id: newId('ver'),
        accountId,
        email: result.email,
        kind,
        status: result.status,
        reason: result.reason,
        credits: result.reachable === 'unknown' ? 0 : 1,
        result,
      })),
    );
    return { results: emails.map((email) => byKey.get(cacheKey(email)) as VerificationResult), balance };
  }
}
