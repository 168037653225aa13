import type { MemberRole } from '@mailguard/db';

/**
 * What people signed in may do (docs/api.md#accounts-sessions-and-members), the one table of it.
 *
 * A session acts like a `full` key of its account, narrowed by the person's role: every route of the
 * REST API names the area it belongs to (`@Area` beside its `@Scopes`), and a role holds a set of areas.
 * Keys are not concerned: their scopes alone decide.
 */
export type Role = 'owner' | MemberRole;

export const MEMBER_ROLES: MemberRole[] = ['admin', 'developer', 'billing'];

export type Right =
  /** Single and batch checks, feedback, the finder. */
  | 'checks'
  /** Bulk lists. */
  | 'lists'
  /** API keys: list, create, rename, re-scope, revoke. */
  | 'keys'
  /** The widget's settings. */
  | 'widget'
  /** The balance (`GET /v1/credits`): every response says it anyway (`X-Credits-Remaining`). */
  | 'balance'
  /** Usage and transactions. */
  | 'billing'
  /** Members (invite, list, remove) and the audit log. */
  | 'members'
  /** Deleting the account itself. */
  | 'account'
  /** One's own sessions and password: every person signed in. */
  | 'self';

const ALL: Right[] = ['checks', 'lists', 'keys', 'widget', 'balance', 'billing', 'members', 'account', 'self'];

export const ROLE_RIGHTS: Record<Role, ReadonlySet<Right>> = {
  owner: new Set(ALL),
  admin: new Set(ALL.filter((right) => right !== 'account')),
  developer: new Set<Right>(['checks', 'lists', 'keys', 'widget', 'balance', 'self']),
  billing: new Set<Right>(['balance', 'billing', 'self']),
};

export function roleAllows(role: Role, right: Right): boolean {
  return ROLE_RIGHTS[role].has(right);
}
