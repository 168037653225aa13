import type { BlockReason } from './messages';

/** `data-guard-status` values (docs/widget.md). */
export type GuardStatus = 'checking' | 'valid' | 'risky' | 'invalid' | 'disposable' | 'free' | 'unverified';

/** The fields of the verification result (docs/api.md#the-result-object) that the widget's rules read. */
export interface WidgetResult {
  email: string;
  status: 'valid' | 'risky' | 'invalid';
  reason: string;
  isFree?: boolean;
  isRole?: boolean;
  isDisposable?: boolean;
  [field: string]: unknown;
}

export interface Decision {
  status: Exclude<GuardStatus, 'checking' | 'unverified'>;
  /** Why it is blocked; for a risky address the result's reason (catch_all, role, …); null when valid. */
  reason: BlockReason | string | null;
}

/**
 * docs/widget.md#options's rules: invalid is always blocked, disposable only with blockDisposable, free only
 * with blockFree; whatever passes but the service calls risky (catch-all, role, full inbox, no
 * answer) is a warning.
 */
export function decide(result: WidgetResult, blockDisposable: boolean, blockFree: boolean): Decision {
  if (result.status === 'invalid') return { status: 'invalid', reason: 'invalid' };
  if (result.isDisposable && blockDisposable) return { status: 'disposable', reason: 'disposable' };
  if (result.isFree && blockFree) return { status: 'free', reason: 'free' };
  if (result.status === 'risky' || result.isDisposable) return { status: 'risky', reason: result.reason };
  return { status: 'valid', reason: null };
}

/** Obvious typos are answered in the page, without spending a check. */
const PLAUSIBLE = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

export function localResult(email: string): WidgetResult | null {
  if (PLAUSIBLE.test(email)) return null;
  return {
    email,
    status: 'invalid',
    reason: 'invalid_syntax',
    syntax: false,
    isValid: false,
    isFree: false,
    isRole: false,
    isDisposable: false,
  };
}

/** The page-level cache key: the local part as typed, the domain's case folded. */
export function addressKey(email: string): string {
  const at = email.lastIndexOf('@');
  return at < 0 ? email : email.slice(0, at) + email.slice(at).toLowerCase();
}
