export { domainInsight, type DomainInsight } from './domain-insight';
export { findAddress, type FinderAnswer, type FinderDeps } from './finder';
export { foldName, parseName, registrableDomain, type PersonName } from './names';
export { candidates, type Candidate } from './patterns';
export { parseDomainParam, parseFinderQuery, type FinderQuery } from './query';
