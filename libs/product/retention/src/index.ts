export { compactErased, eraseExpired, type Erased } from './erase';
export { scheduleSweeps, type Schedule } from './schedule';
