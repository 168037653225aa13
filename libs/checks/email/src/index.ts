export {
  parseAddress,
  printable,
  type InvalidAddress,
  type SyntaxProblem,
  type SyntaxResult,
  type ValidAddress,
} from './syntax';
export { isRoleLocalPart, ROLE_COUNT } from './role';
export { DISPOSABLE_DOMAIN_COUNT, isDisposableDomain, isFreeDomain } from './providers';
export { correctionOf, typoOf, type Typo } from './typos';
