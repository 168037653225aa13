import type { DataSource, EntityManager } from 'typeorm';
import type { CreditLedger, TransactionPage } from '@mailguard/credits';
import type { AccountStatus } from '@mailguard/db';
import { AppError } from '@mailguard/errors';
import type { ApiKeys } from '@mailguard/keys';
import type { ListStore } from '@mailguard/lists';
import { compactTables } from '@mailguard/retention';
import { recordAudit, type AuditOrigin } from './audit';

/** An account as operators see it (docs/operations.md#operator-console). */
export interface OperatorAccountView {
  id: string;
  email: string;
  name: string | null;
  balance: number;
  held: number;
  status: AccountStatus;
  createdAt: string;
  /** The latest use of one of its keys or sessions; null if never. */
  lastActiveAt: string | null;
}

export interface AuditEntryView {
  id: string;
  accountId: string | null;
  actor: string;
  action: string;
  target: string | null;
  detail: string | null;
  clientIp: string | null;
  requestId: string | null;
  createdAt: string;
}

export interface Page<T> {
  data: T[];
  page: number;
  limit: number;
  total: number;
}

export type LedgerRow = TransactionPage['data'][number];

/** Every operator action is audited under this actor. */
export const OPERATOR = 'operator';

/** The address an erased account keeps: unique per account, and no mailbox anywhere (`.invalid`). */
export const erasedEmail = (accountId: string) => `erased-${accountId.toLowerCase()}@invalid`;

/** Longest reason kept: the audit log is a log, not a document store. */
export const MAX_REASON = 500;

interface AccountRow {
  id: string;
  email: string;
  name: string | null;
  balance: number;
  held: number;
  status: AccountStatus;
  created_at: Date;
  last_active_at: Date | null;
}

const ACCOUNT_COLUMNS = `a.id, a.email, a.name, a.balance, a.held, a.status, a.created_at,
  (SELECT max(t) FROM (
     SELECT max(k.last_used_at) AS t FROM api_keys k WHERE k.account_id = a.id
     UNION ALL SELECT max(s.last_seen_at) FROM sessions s WHERE s.account_id = a.id) seen) AS last_active_at`;

function accountView(row: AccountRow): OperatorAccountView {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    balance: row.balance,
    held: row.held,
    status: row.status,
    createdAt: new Date(row.created_at).toISOString(),
    lastActiveAt: row.last_active_at ? new Date(row.last_active_at).toISOString() : null,
  };
}

/**
 * Tables an erasure deletes from or rewrites, in the order it does. What the embedded database's
 * files keep of them afterwards is rewritten away (compactTables), as the retention sweep does.
 */
const ERASED_TABLES = [
  'domain_evidence',
  'domain_queries',
  'credit_transactions',
  'verifications',
  'feedback',
  'open_charges',
  'list_rows',
  'webhook_deliveries',
  'lists',
  'widget_settings',
  'api_keys',
  'auth_tokens',
  'sessions',
  'members',
  'accounts',
];

/**
 * The operator console's use cases: list accounts, move credits, suspend and unsuspend, erase, read
 * the audit log. Each action changes the account and writes its audit entry (actor `operator`) in
 * one transaction, then makes every gateway forget the account's cached keys (ApiKeys.accountChanged),
 * so the change is seen everywhere within the time a Redis message takes.
 */
export class Operators {
  constructor(
    private readonly dataSource: () => DataSource,
    private readonly ledger: CreditLedger,
    private readonly lists: ListStore,
    private readonly keys: ApiKeys,
    /** The database's files are the service's own (embedded PGlite): an erasure rewrites them. */
    private readonly compactAfterErasure: boolean,
  ) {}

  /** Accounts, newest first; `email` matches any part of the address, whatever its case. */
  async accounts(query: { email: string | null; page: number; limit: number }): Promise<Page<OperatorAccountView>> {
    const filter = query.email ? 'WHERE position(lower($1::text) in a.email_key) > 0' : 'WHERE $1::text IS NULL';
    const params = [query.email || null];
    const [{ total }] = (await this.dataSource().query(
      `SELECT count(*)::int AS total FROM accounts a ${filter}`,
      params,
    )) as Array<{ total: number }>;
    const rows = (await this.dataSource().query(
      `SELECT ${ACCOUNT_COLUMNS} FROM accounts a ${filter} ORDER BY a.created_at DESC, a.id LIMIT $2 OFFSET $3`,
      [...params, query.limit, (query.page - 1) * query.limit],
    )) as AccountRow[];
    return { data: rows.map(accountView), page: query.page, limit: query.limit, total };
  }

  async account(
    accountId: string,
    runner: Pick<EntityManager, 'query'> = this.dataSource(),
  ): Promise<OperatorAccountView> {
    const [row] = (await runner.query(`SELECT ${ACCOUNT_COLUMNS} FROM accounts a WHERE a.id = $1`, [accountId])) as
      AccountRow[] | [];
    if (!row) throw new AppError('not_found', `No account ${accountId}`);
    return accountView(row);
  }

  /**
   * Credits in (`grant`) or out (`adjust`), never below zero (409), with the audit entry, in one
   * transaction. The ledger row.
   */
  async credit(accountId: string, amount: number, reason: string, origin: AuditOrigin): Promise<LedgerRow> {
    const row = await this.dataSource().transaction(async (manager) => {
      await this.lock(manager, accountId);
      const moved = await this.ledger.operatorMove(accountId, amount, reason, manager);
      if (!moved)
        throw new AppError('conflict', `The balance cannot go below zero: it holds less than ${-amount} credits`);
      await recordAudit(manager, {
        ...origin,
        accountId,
        actor: OPERATOR,
        action: amount > 0 ? 'account.grant' : 'account.adjust',
        target: accountId,
        detail: `${amount > 0 ? '+' : ''}${amount}: ${reason}`,
      });
      return moved;
    });
    // Other gateways read the balance afresh (X-Credits-Remaining); this one noted it already.
    await this.keys.accountChanged(accountId);
    return row;
  }

  /**
   * Keys, widget keys and sessions of the account are refused (403 account_suspended) and its
   * running lists pause. Sessions are kept: unsuspending gives access back.
   */
  async suspend(accountId: string, reason: string, origin: AuditOrigin): Promise<OperatorAccountView> {
    const view = await this.dataSource().transaction(async (manager) => {
      await this.lock(manager, accountId);
      await manager.query(`UPDATE accounts SET status = 'suspended', status_reason = $2 WHERE id = $1`, [
        accountId,
        reason,
      ]);
      const paused = await this.lists.pauseAccount(manager, accountId);
      await recordAudit(manager, {
        ...origin,
        accountId,
        actor: OPERATOR,
        action: 'account.suspend',
        target: accountId,
        detail: paused.length > 0 ? `${reason} (lists paused: ${paused.join(', ')})` : reason,
      });
      return this.account(accountId, manager);
    });
    await this.keys.accountChanged(accountId);
    return view;
  }

  /** Access comes back; the paused lists are queued again (`resumed`: the caller feeds them). */
  async unsuspend(
    accountId: string,
    reason: string | null,
    origin: AuditOrigin,
  ): Promise<{ account: OperatorAccountView; resumed: string[] }> {
    const done = await this.dataSource().transaction(async (manager) => {
      await this.lock(manager, accountId);
      await manager.query(`UPDATE accounts SET status = 'active', status_reason = NULL WHERE id = $1`, [accountId]);
      const resumed = await this.lists.resumeAccount(manager, accountId);
      await recordAudit(manager, {
        ...origin,
        accountId,
        actor: OPERATOR,
        action: 'account.unsuspend',
        target: accountId,
        detail: reason,
      });
      return { account: await this.account(accountId, manager), resumed };
    });
    await this.keys.accountChanged(accountId);
    return done;
  }

  /**
   * Erases what the account holds: its addresses (stored checks, lists and their rows, feedback,
   * what the domain model learnt from them), widget settings, keys, sessions, members and one-time
   * links. The account row and its ledger stay, anonymised (status `erased`), and so does the audit
   * log. In embedded mode the database's files are rewritten so no erased address stays in them.
   */
  async erase(accountId: string, reason: string | null, origin: AuditOrigin): Promise<void> {
    await this.dataSource().transaction(async (manager) => {
      await this.lock(manager, accountId);
      // What the domain model learnt from this account's addresses, and their queries at catch-all domains
      // (neither keeps an owner, so matched by address).
      await manager.query(
        `WITH addresses AS (
           SELECT lower(email) AS address FROM verifications WHERE account_id = $1 AND email IS NOT NULL
           UNION SELECT lower(r.email) FROM list_rows r JOIN lists l ON l.id = r.list_id WHERE l.account_id = $1
           UNION SELECT r.key FROM list_rows r JOIN lists l ON l.id = r.list_id WHERE l.account_id = $1 AND r.key IS NOT NULL
           UNION SELECT lower(local_part || '@' || domain) FROM feedback WHERE account_id = $1
           UNION SELECT email_key FROM accounts WHERE id = $1
           UNION SELECT email_key FROM members WHERE account_id = $1),
         evidence AS (
           DELETE FROM domain_evidence e USING addresses a
           WHERE e.domain = split_part(a.address, '@', 2) AND lower(e.local_part) = split_part(a.address, '@', 1))
         DELETE FROM domain_queries q USING addresses a
         WHERE q.domain = split_part(a.address, '@', 2) AND q.local_part = split_part(a.address, '@', 1)`,
        [accountId],
      );
      // The ledger stays, but its reasons name lists by their (customer-chosen) names: by id instead.
      await manager.query(
        `UPDATE credit_transactions SET reason = kind || ': list ' || ref
         WHERE account_id = $1 AND ref IN (SELECT id FROM lists WHERE account_id = $1)`,
        [accountId],
      );
      for (const table of ['verifications', 'feedback', 'open_charges', 'lists', 'widget_settings'])
        await manager.query(`DELETE FROM ${table} WHERE account_id = $1`, [accountId]);
      // Sessions and one-time links before members (they may name one).
      for (const table of ['api_keys', 'auth_tokens', 'sessions', 'members'])
        await manager.query(`DELETE FROM ${table} WHERE account_id = $1`, [accountId]);
      const email = erasedEmail(accountId);
      await manager.query(
        `UPDATE accounts SET email = $2, email_key = $2, name = NULL, password_hash = NULL, signup_ip = NULL,
           status = 'erased', status_reason = $3, held = 0, webhook_secret = 'erased'
         WHERE id = $1`,
        [accountId, email, reason],
      );
      await recordAudit(manager, {
        ...origin,
        accountId,
        actor: OPERATOR,
        action: 'account.erase',
        target: accountId,
        detail: reason,
      });
    });
    await this.keys.accountChanged(accountId);
    if (this.compactAfterErasure) await compactTables(this.dataSource(), ERASED_TABLES);
  }

  /** Every account's audit entries and the operators' own, newest first; `accountId` narrows to one account. */
  async audit(query: { accountId: string | null; page: number; limit: number }): Promise<Page<AuditEntryView>> {
    const filter = 'WHERE ($1::text IS NULL OR account_id = $1)';
    const [{ total }] = (await this.dataSource().query(`SELECT count(*)::int AS total FROM audit_log ${filter}`, [
      query.accountId,
    ])) as Array<{ total: number }>;
    const rows = (await this.dataSource().query(
      `SELECT id::text, account_id, actor, action, target, detail, client_ip, request_id, created_at
       FROM audit_log ${filter} ORDER BY id DESC LIMIT $2 OFFSET $3`,
      [query.accountId, query.limit, (query.page - 1) * query.limit],
    )) as Array<{
      id: string;
      account_id: string | null;
      actor: string;
      action: string;
      target: string | null;
      detail: string | null;
      client_ip: string | null;
      request_id: string | null;
      created_at: Date;
    }>;
    return {
      data: rows.map((row) => ({
        id: row.id,
        accountId: row.account_id,
        actor: row.actor,
        action: row.action,
        target: row.target,
        detail: row.detail,
        clientIp: row.client_ip,
        requestId: row.request_id,
        createdAt: new Date(row.created_at).toISOString(),
      })),
      page: query.page,
      limit: query.limit,
      total,
    };
  }

  /** The account's row, locked for the transaction: 404 when there is none, 409 once it is erased. */
  private async lock(manager: EntityManager, accountId: string): Promise<void> {
    const [row] = (await manager.query('SELECT status FROM accounts WHERE id = $1 FOR UPDATE', [accountId])) as
      Array<{ status: AccountStatus }> | [];
    if (!row) throw new AppError('not_found', `No account ${accountId}`);
    if (row.status === 'erased') throw new AppError('conflict', `Account ${accountId} is erased`);
  }
}
