export { arpaName, queryDnsbl, reversedName, type DnsblOutcome } from './dnsbl';
