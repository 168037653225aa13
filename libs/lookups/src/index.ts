export { DomainAgeLookup, type DomainAge } from './domain-age';
export { hasGravatar } from './gravatar';
export { nodeGet, type HttpGet, type HttpGetOptions } from './http';
