import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import { AccountEntity, ApiKeyEntity, MemberEntity, SessionEntity } from '@mailguard/db';
import { newId } from '@mailguard/keys';
import type { Role } from './roles';

/** Sessions end after 7 days without a request, and 30 days after sign-in whatever happens. */
export const SESSION_IDLE_MS = 7 * 86_400_000;
export const SESSION_MAX_MS = 30 * 86_400_000;
/** `last_seen_at` is written at most once a minute per session. */
const LAST_SEEN_EVERY_MS = 60_000;

/** The cookie names (docs/api.md#accounts-sessions-and-members). */
export const SESSION_COOKIE = 'mg_session';
export const CSRF_COOKIE = 'mg_csrf';

/** A person signed in, as a request sees them. */
export interface SignedIn {
  /** The session's id (`ses_…`), as listed by GET /auth/sessions. */
  id: string;
  /** null for the account's owner. */
  memberId: string | null;
  role: Role;
  /** The CSRF token this session's state-changing requests must carry. */
  csrf: string;
}

/** A request made by a person signed in: acts for the account, with no key. */
export interface SessionPrincipal {
  key?: undefined;
  account: AccountEntity;
  session: SignedIn;
}

/** A request made with a secret or widget key. */
export interface KeyPrincipal {
  key: ApiKeyEntity;
  account: AccountEntity;
  session?: undefined;
}

/** Whoever a request acts as: a key of an account, or a person signed in to it. */
export type Principal = KeyPrincipal | SessionPrincipal;

/** The audit log's actor: `key:<id>`, `account:<id>` (the owner) or `member:<id>`. */
export function actorOf(principal: Principal): string {
  if (!principal.session) return `key:${principal.key.id}`;
  return principal.session.memberId ? `member:${principal.session.memberId}` : `account:${principal.account.id}`;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** 32 random bytes, as sent in a cookie or a link. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * The CSRF token of a session: derived from its secret, so it cannot be set by anyone who does not
 * hold the session (a cookie planted from a sibling domain does not match), and needs no storage.
 */
export function csrfTokenFor(sessionToken: string): string {
  return createHash('sha256').update(`csrf\0${sessionToken}`, 'utf8').digest('base64url');
}

/** Whether the header a request carries is its session's CSRF token, in constant time. */
export function csrfMatches(given: string | undefined, expected: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export interface StartedSession {
  id: string;
  token: string;
  csrf: string;
  expiresAt: Date;
}

/** Opens a session for the account's owner (memberId null) or one of its members. */
export async function startSession(
  manager: EntityManager,
  login: { accountId: string; memberId: string | null; device: string | null; clientIp: string | null },
): Promise<StartedSession> {
  const token = newToken();
  const id = newId('ses');
  const expiresAt = new Date(Date.now() + SESSION_MAX_MS);
  await manager.insert(SessionEntity, {
    id,
    tokenHash: hashToken(token),
    accountId: login.accountId,
    memberId: login.memberId,
    // Shown back to the person in their sessions list; bounded, and no control characters.
    device: login.device ? login.device.replace(/[\x00-\x1f\x7f]/g, ' ').slice(0, 200) : null,
    clientIp: login.clientIp,
    expiresAt,
  });
  return { id, token, csrf: csrfTokenFor(token), expiresAt };
}

/**
 * The session a cookie names, its account and the person's role; null when unknown, ended, idle for
 * 7 days or past its 30. Notes the use (at most once a minute).
 */
export async function findSession(dataSource: DataSource, token: string): Promise<SessionPrincipal | null> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
  const session = await dataSource
    .getRepository(SessionEntity)
    .createQueryBuilder('session')
    .innerJoinAndMapOne('session.account', AccountEntity, 'account', 'account.id = session.accountId')
    .leftJoinAndMapOne('session.member', MemberEntity, 'member', 'member.id = session.memberId')
    .where('session.tokenHash = :hash', { hash: hashToken(token) })
    .getOne();
  if (!session?.account) return null;
  const now = Date.now();
  if (session.expiresAt.getTime() <= now || session.lastSeenAt.getTime() + SESSION_IDLE_MS <= now) {
    await dataSource.getRepository(SessionEntity).delete({ id: session.id });
    return null;
  }
  if (session.memberId && !session.member) return null;
  if (now - session.lastSeenAt.getTime() > LAST_SEEN_EVERY_MS) {
    await dataSource
      .createQueryBuilder()
      .update(SessionEntity)
      .set({ lastSeenAt: () => 'now()' })
      // Conditional: requests of one session arriving together write it once.
      .where("id = :id AND last_seen_at < now() - interval '1 minute'", { id: session.id })
      .execute();
  }
  return {
    account: session.account,
    session: {
      id: session.id,
      memberId: session.memberId,
      role: session.member ? session.member.role : 'owner',
      csrf: csrfTokenFor(token),
    },
  };
}

/** Ends one session of the account; false when it has none of that id. */
export async function endSession(manager: EntityManager, accountId: string, id: string): Promise<boolean> {
  const result = await manager.delete(SessionEntity, { id, accountId });
  return (result.affected ?? 0) > 0;
}

/**
 * Ends sessions of an account: all of them (an operator's suspension or erasure), one person's
 * (`memberId`: null for the owner, an id for a member), optionally all but one (`except`).
 * Returns how many ended.
 */
export async function endSessions(
  manager: EntityManager,
  accountId: string,
  only: { memberId?: string | null; except?: string } = {},
): Promise<number> {
  const query = manager
    .createQueryBuilder()
    .delete()
    .from(SessionEntity)
    .where('account_id = :accountId', { accountId });
  if (only.memberId === null) query.andWhere('member_id IS NULL');
  else if (only.memberId !== undefined) query.andWhere('member_id = :memberId', { memberId: only.memberId });
  if (only.except) query.andWhere('id <> :except', { except: only.except });
  const result = await query.execute();
  return result.affected ?? 0;
}

/** Rows deleted per statement by `removeEndedLogins`. */
const SWEEP_BATCH = 5_000;

/**
 * Deletes what can never be used again and still names a person's device and address: sessions past
 * their idle or absolute end, and one-time links used or expired. Run by every gateway's retention
 * sweep; gateways sweeping side by side skip each other's rows. Returns the rows deleted.
 */
export async function removeEndedLogins(
  source: DataSource,
  batch = SWEEP_BATCH,
): Promise<{ sessions: number; links: number }> {
  const statements = {
    sessions: `DELETE FROM sessions WHERE id IN (
      SELECT id FROM sessions WHERE expires_at <= now() OR last_seen_at <= now() - make_interval(secs => $2)
      LIMIT $1 FOR UPDATE SKIP LOCKED)`,
    links: `DELETE FROM auth_tokens WHERE token_hash IN (
      SELECT token_hash FROM auth_tokens WHERE expires_at <= now() OR used_at IS NOT NULL LIMIT $1 FOR UPDATE SKIP LOCKED)`,
  };
  const removed = { sessions: 0, links: 0 };
  for (const kind of ['sessions', 'links'] as const) {
    const params = kind === 'sessions' ? [batch, SESSION_IDLE_MS / 1000] : [batch];
    for (let count = batch; count === batch;) {
      count = ((await source.query(statements[kind], params)) as [unknown[], number])[1];
      removed[kind] += count;
    }
  }
  return removed;
}
