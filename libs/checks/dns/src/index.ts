export { createResolver, lookupFailure, type DnsResolver, type LookupFailure, type ResolverOptions } from './resolver';
export { lookupMailDomain, type MailDomain, type MxHost } from './mail-domain';
export { DKIM_SELECTORS, lookupAuthentication, type Authentication } from './authentication';
