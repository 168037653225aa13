export { checkSpf, type SpfOutcome, type SpfQuery, type SpfResult } from './spf';
export { arpaName, queryDnsbl, reversedName, type DnsblOutcome } from './dnsbl';
