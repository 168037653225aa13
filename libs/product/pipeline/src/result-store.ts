import type { DataSource, EntityManager } from 'typeorm';
import { resultKey, type ResultCache } from '@mailguard/cache';
import { checkCost } from '@mailguard/credits';
import { queryPrepared, VerificationEntity } from '@mailguard/db';
import type { VerificationResult } from '@mailguard/engine';
import type { CheckRequest } from '@mailguard/queue';

/** On every check's path: a prepared statement, planned once per connection (TypeORM's builder cost ~0.3 ms a row). */
const INSERT_VERIFICATION = `INSERT INTO verifications (id, account_id, email, kind, status, reason, credits, result)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING RETURNING id`;

type Runner = Pick<EntityManager, 'query'>;

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

  private params(request: CheckRequest, result: VerificationResult): unknown[] {
    return [
      request.requestId,
      request.accountId,
      result.email,
      request.kind,
      result.status,
      result.reason,
      // What the check finally costs, refunds deducted.
      checkCost(result),
      JSON.stringify(result),
    ];
  }

  private async insert(request: CheckRequest, result: VerificationResult, runner?: Runner): Promise<boolean> {
    if (!request.accountId || !request.kind) return true;
    const params = this.params(request, result);
    const inserted: unknown[] = runner
      ? await runner.query(INSERT_VERIFICATION, params)
      : await queryPrepared(this.dataSource(), 'mailguard_insert_verification', INSERT_VERIFICATION, params);
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

  /**
   * An answer served to an account that no stage stored (a cached one, the finder's): recorded for
   * its usage, not cached again. In the caller's transaction when one is given.
   */
  async record(request: CheckRequest, result: VerificationResult, runner?: Runner): Promise<void> {
    await this.insert(request, result, runner);
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

  /**
   * The charge sweep's write, in its transaction, for the checks of a charge whose gateway stopped
   * before answering: each check still without a stored answer gets its provisional one, as the
   * gateway would have claimed at the deadline (an answer landing later is dropped, as after any
   * claim). Returns what the checks' stored answers cost. The sum is a statement of its own, so it
   * reads the answers that landed while the claims waited on them.
   */
  async claimLost(
    claims: Array<{ request: CheckRequest; provisional: VerificationResult }>,
    runner: Runner,
  ): Promise<number> {
    if (claims.length === 0) return 0;
    for (const { request, provisional } of claims) await this.insert(request, provisional, runner);
    const [{ cost }]: Array<{ cost: number }> = await runner.query(
      'SELECT coalesce(sum(credits), 0)::int AS cost FROM verifications WHERE id = ANY($1::text[])',
      [claims.map(({ request }) => request.requestId)],
    );
    return cost;
  }
}
