export { checkSpf, type SpfOutcome, type SpfQuery, type SpfResult } from './spf';
export { arpaName, queryDnsbl, reversedName, type DnsblOutcome } from './dnsbl';
export { runDoctor, selfCheck, type DoctorOptions } from './doctor';
export { askPublicAddress } from './public-ip';
export {
  proberReadiness,
  providerLabel,
  reportText,
  type CheckStatus,
  type DoctorCheck,
  type DoctorReport,
  type EgressReport,
  type ProberReadiness,
  type ProberStatus,
} from './report';
export { MemoryReportStore, ProberMonitor, RedisReportStore, type MonitorOptions, type ReportStore } from './monitor';
