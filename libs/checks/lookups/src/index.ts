export { DomainAgeLookup, type DomainAge } from './domain-age';
export { hasGravatar } from './gravatar';
export { outboundGet, type HttpGet, type HttpGetOptions } from './http';
