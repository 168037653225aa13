import type { EntityManager } from 'typeorm';
import { AuthTokenEntity, MemberEntity, SessionEntity, type AuthTokenKind } from '@mailguard/db';
import { hashToken, newToken } from './sessions';

/** A password-reset link is good for 30 minutes; an invitation for 7 days. */
export const LINK_TTL_MS: Record<AuthTokenKind, number> = {
  password_reset: 30 * 60_000,
  invitation: 7 * 86_400_000,
};

/** A one-time link's secret, stored only as its hash. Earlier unused links of the same person and kind stop working. */
export async function issueLink(
  manager: EntityManager,
  kind: AuthTokenKind,
  accountId: string,
  memberId: string | null,
): Promise<string> {
  const token = newToken();
  const earlier = manager
    .createQueryBuilder()
    .delete()
    .from(AuthTokenEntity)
    .where('kind = :kind AND account_id = :accountId', { kind, accountId });
  if (memberId === null) earlier.andWhere('member_id IS NULL');
  else earlier.andWhere('member_id = :memberId', { memberId });
  await earlier.execute();
  await manager.insert(AuthTokenEntity, {
    tokenHash: hashToken(token),
    kind,
    accountId,
    memberId,
    expiresAt: new Date(Date.now() + LINK_TTL_MS[kind]),
    usedAt: null,
  });
  return token;
}

/**
 * Uses a link once: the account and member it was for, or null when it is unknown, used, expired or
 * of another kind. Two requests racing with one link: one wins.
 */
export async function consumeLink(
  manager: EntityManager,
  kind: AuthTokenKind,
  token: string,
): Promise<{ accountId: string; memberId: string | null } | null> {
  if (typeof token !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
  const rows = (await manager.query(
    `UPDATE auth_tokens SET used_at = now()
      WHERE token_hash = $1 AND kind = $2 AND used_at IS NULL AND expires_at > now()
      RETURNING account_id, member_id`,
    [hashToken(token), kind],
  )) as unknown;
  // TypeORM answers an UPDATE … RETURNING as [rows, count] on Postgres, and as rows on some drivers.
  const list = (Array.isArray(rows) && Array.isArray(rows[0]) ? rows[0] : rows) as Array<{
    account_id: string;
    member_id: string | null;
  }>;
  const row = list[0];
  return row ? { accountId: row.account_id, memberId: row.member_id } : null;
}

/** Everything of an account's logins but its audit log: sessions, links and members (an operator's erasure). */
export async function eraseLogins(manager: EntityManager, accountId: string): Promise<void> {
  await manager.delete(SessionEntity, { accountId });
  await manager.delete(AuthTokenEntity, { accountId });
  await manager.delete(MemberEntity, { accountId });
}
