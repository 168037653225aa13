export { findAddress, type FinderAnswer } from './finder';
export { foldName, parseName, registrableDomain, type PersonName } from './names';
export { candidates, PATTERNS, type Candidate } from './patterns';
