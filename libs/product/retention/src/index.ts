export { compactErased, compactTables, eraseExpired, type Erased } from './erase';
export { scheduleSweeps, type Schedule } from './schedule';
