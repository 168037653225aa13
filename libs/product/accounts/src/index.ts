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
