export { recordAudit, type AuditOrigin, type AuditRecord } from './audit';
export {
  erasedEmail,
  MAX_REASON,
  OPERATOR,
  Operators,
  type AuditEntryView,
  type LedgerRow,
  type OperatorAccountView,
  type Page,
} from './operators';
export { consumeLink, eraseLogins, issueLink, LINK_TTL_MS } from './links';
export { formatMessage, MailError, sendMail, type OutgoingMail } from './mail';
export {
  assertPasswordAllowed,
  hashPassword,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  passwordProblem,
  verifyPassword,
} from './passwords';
export { MEMBER_ROLES, ROLE_RIGHTS, roleAllows, type Right, type Role } from './roles';
export {
  actorOf,
  CSRF_COOKIE,
  csrfMatches,
  csrfTokenFor,
  endSession,
  endSessions,
  findSession,
  hashToken,
  newToken,
  removeEndedLogins,
  SESSION_COOKIE,
  SESSION_IDLE_MS,
  SESSION_MAX_MS,
  startSession,
  type KeyPrincipal,
  type Principal,
  type SessionPrincipal,
  type SignedIn,
  type StartedSession,
} from './sessions';
