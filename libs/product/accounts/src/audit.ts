import type { EntityManager } from 'typeorm';
import { AuditEntryEntity } from '@mailguard/db';

/** Where a change came from: the request's client address and id, when there was a request. */
export interface AuditOrigin {
  clientIp?: string | null;
  requestId?: string | null;
}

export interface AuditRecord extends AuditOrigin {
  accountId: string | null;
  /** `account:<id>`, `member:<id>`, `key:<id>`, `operator` or `system`. */
  actor: string;
  /** `<object>.<verb>`, e.g. `key.create`, `member.invite`, `session.end`, `account.suspend`. */
  action: string;
  target?: string | null;
  /** Never a secret or an address: the audit log outlives retention. */
  detail?: string | null;
}

/**
 * Appends one audit entry. Pass the manager of the transaction that makes the change, so the change
 * and its entry are written together or not at all.
 */
export async function recordAudit(manager: EntityManager, record: AuditRecord): Promise<void> {
  await manager.insert(AuditEntryEntity, {
    accountId: record.accountId,
    actor: record.actor,
    action: record.action,
    target: record.target ?? null,
    detail: record.detail ?? null,
    clientIp: record.clientIp ?? null,
    requestId: record.requestId ?? null,
  });
}
