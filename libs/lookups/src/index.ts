export { DomainAgeLookup, type DomainAge } from './domain-age';
export { hasGravatar } from './gravatar';
export { fetchGet, type HttpGet } from './http';
