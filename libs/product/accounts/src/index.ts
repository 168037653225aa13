export { recordAudit, type AuditOrigin, type AuditRecord } from './audit';
