import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  Operators,
  type AuditEntryView,
  type LedgerRow,
  type OperatorAccountView,
  type Page,
} from '@mailguard/accounts';
import type { AuditOrigin } from '@mailguard/accounts';
import { AppError } from '@mailguard/errors';
import { announce, feedList, ListStore } from '@mailguard/lists';
import { CHECK_PIPELINE, type CheckPipeline } from '@mailguard/queue';

/** Postgres: a value out of its column's range (an integer balance past 2^31). */
const NUMERIC_OUT_OF_RANGE = '22003';

/**
 * The operator console's use cases (docs/operations.md#operator-console): Operators' rules, plus
 * what needs the gateway's job transport: the lists an unsuspension resumes are fed again at once.
 */
@Injectable()
export class AdminService {
  private readonly logger = new Logger('Operators');

  constructor(
    private readonly operators: Operators,
    private readonly lists: ListStore,
    @Inject(CHECK_PIPELINE) private readonly pipeline: CheckPipeline,
  ) {}

  accounts(query: { email: string | null; page: number; limit: number }): Promise<Page<OperatorAccountView>> {
    return this.operators.accounts(query);
  }

  async credit(accountId: string, amount: number, reason: string, origin: AuditOrigin): Promise<LedgerRow> {
    return this.operators.credit(accountId, amount, reason, origin).catch((error: { code?: string }) => {
      if (error.code === NUMERIC_OUT_OF_RANGE) throw new AppError('conflict', 'The balance would exceed its maximum');
      throw error;
    });
  }

  suspend(accountId: string, reason: string, origin: AuditOrigin): Promise<OperatorAccountView> {
    return this.operators.suspend(accountId, reason, origin);
  }

  async unsuspend(accountId: string, reason: string | null, origin: AuditOrigin): Promise<OperatorAccountView> {
    const { account, resumed } = await this.operators.unsuspend(accountId, reason, origin);
    // Ended now when every row settled while it was paused, else fed now; should this fail, the
    // list sweeps take the queued lists up at their next round.
    for (const listId of resumed) {
      try {
        const finished = await this.lists.completeIfDone(listId);
        if (finished) await announce(finished, this.pipeline.jobs);
        else await feedList(listId, this.pipeline.jobs);
      } catch (error) {
        this.logger.warn(`could not resume list ${listId} at once; the next sweep will: ${String(error)}`);
      }
    }
    return account;
  }

  erase(accountId: string, reason: string | null, origin: AuditOrigin): Promise<void> {
    return this.operators.erase(accountId, reason, origin);
  }

  audit(query: { accountId: string | null; page: number; limit: number }): Promise<Page<AuditEntryView>> {
    return this.operators.audit(query);
  }
}
