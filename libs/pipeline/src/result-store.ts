import type { DataSource } from 'typeorm';
import { resultKey, type ResultCache } from '@mailguard/cache';
import { checkCost } from '@mailguard/credits';
import { queryPrepared, VerificationEntity } from '@mailguard/db';
import type { VerificationResult } from '@mailguard/engine';
import type { CheckRequest } from '@mailguard/queue';

/** On every check's path: a prepared statement, planned once per connection (TypeORM's builder cost ~0.3 ms a row). */
const INSERT_VERIFICATION = `INSERT INTO verifications (id, account_id, email, kind, status, reason, credits, result)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING RETURNING id`;

/**
 * Where finished checks go: the result cache (answers worth repeating) and, for an account's
 * checks, the `verifications` table, one row per request id — whoever writes first (the scoring
 * stage, or the gateway giving up at the deadline) decides, and the other reads that row.
 */
export class ResultStore {
  constructor(
    private readonly dataSource: () => DataSource,
    private readonly cache: ResultCache,
    private readonly cacheTtlSeconds: number,
  ) {}

  private async insert(request: CheckRequest, result: VerificationResult): Promise<boolean> {
    if (!request.accountId || !request.kind) return true;
    const inserted = await queryPrepared(this.dataSource(), 'mailguard_insert_verification', INSERT_VERIFICATION, [
      request.requestId,
      request.accountId,
      result.email,
      request.kind,
      result.status,
      result.reason,
      // What the check finally costs, refunds deducted.
      checkCost(result),
      JSON.stringify(result),
    ]);
    return inserted.length > 0;
  }

  /** The scoring stage's write. */
  async save(request: CheckRequest, result: VerificationResult): Promise<void> {
    // An unknown answer is not worth keeping: the next check may get a real one.
    await Promise.all([
      result.reachable !== 'unknown' && this.cache.set(resultKey(result.email), result, this.cacheTtlSeconds),
      this.insert(request, result),
    ]);
  }

  /** A cached answer served to an account: recorded for its usage, not cached again. */
  async record(request: CheckRequest, result: VerificationResult): Promise<void> {
    await this.insert(request, result);
  }

  /**
   * The gateway's write at the deadline: its provisional answer, unless the scoring stage finished
   * in the meantime, in which case that stored answer is the one to send.
   */
  async claim(request: CheckRequest, provisional: VerificationResult): Promise<VerificationResult> {
    if (await this.insert(request, provisional)) return provisional;
    const stored = await this.dataSource()
      .getRepository(VerificationEntity)
      .findOne({ where: { id: request.requestId } });
    return stored?.result ?? provisional;
  }
}
