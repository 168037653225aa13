import type { VerificationResult } from '@mailguard/engine';

/**
 * The pricing policy (docs/api.md#credits): what every surface costs and when a charge comes back. This is
 * the only place a price or a refund rule is written; the services ask it and `CreditLedger`
 * moves the credits it names.
 *
 * | surface                                             | cost                                        |
 * |-----------------------------------------------------|---------------------------------------------|
 * | single check, widget check with a widget key        | CHECK_PRICE (cached and syntax failures too) |
 * | batch                                               | CHECK_PRICE per distinct address            |
 * | list                                                | CHECK_PRICE per chargeable row, held at upload, charged as it settles |
 * | finder                                              | FINDER_PRICE when an address is returned    |
 * | domain insight, feedback, widget public tier, reads | free                                        |
 * | MCP tools                                           | those of their REST twins: they run the same services |
 *
 * Refunds: a result whose `reachable` is `unknown` told the customer nothing and costs nothing;
 * a check or a finder call that failed is given back whole, and so is a finder that found nobody.
 * A charge whose gateway stopped before answering is settled by the charge sweep the same way.
 */

/** One address checked: single, each distinct address of a batch, a widget check with a key, a list row. */
export const CHECK_PRICE = 1;

/** An address the finder returns; nothing when it finds nobody. */
export const FINDER_PRICE = 1;

/** Every account starts with this. */
export const SIGNUP_GRANT = 1_000;

/** Added when the sign-up address is a work address (2,500 in all, docs/api.md#credits). */
export const WORK_EMAIL_BONUS = 1_500;

/** The widget's free tier (no key): checks per device (with the client IP) and per IP, per UTC day. */
export const WIDGET_FREE_TIER = { perDevice: 4, perIp: 20 } as const;

type Answer = Pick<VerificationResult, 'reachable'>;

/** Whether a check's answer is given back: `unknown` means no server gave an answer. */
export function isRefunded(result: Answer): boolean {
  return result.reachable === 'unknown';
}

/** Taken up front for checking `distinct` addresses (repeats in one request are charged once). */
export function checksCost(distinct: number): number {
  return distinct * CHECK_PRICE;
}

/** What one answered check finally costs: its usage row's `credits`. */
export function checkCost(result: Answer): number {
  return isRefunded(result) ? 0 : CHECK_PRICE;
}

/** What goes back of a request's up-front charge once its distinct addresses are answered. */
export function checksRefund(results: Answer[]): number {
  return results.reduce((sum, result) => sum + CHECK_PRICE - checkCost(result), 0);
}

/**
 * What the charge sweep gives back of a charge its gateway never settled: what it took less what
 * its checks' stored answers cost (a lost check is stored as `unknown`, so it costs nothing).
 */
export function sweptRefund(charge: { amount: number }, answeredCost: number): number {
  return Math.max(0, charge.amount - answeredCost);
}

/** Held when a list is queued: its chargeable rows (neither a repeat of an earlier row nor a syntax failure). */
export function listHold(chargeableRows: number): number {
  return chargeableRows * CHECK_PRICE;
}

/**
 * What settling these first occurrences of their addresses charges (their duplicates are free),
 * out of the list's hold; what is still held when the list ends is released.
 */
export function listCharge(settled: Answer[]): number {
  return settled.reduce((sum, result) => sum + checkCost(result), 0);
}

/** Whether a finder call keeps its up-front FINDER_PRICE: only when it returned an address. */
export function finderKeepsCharge<T extends { email: string | null; result: VerificationResult | null }>(
  answer: T,
): answer is T & { email: string; result: VerificationResult } {
  return answer.email !== null && answer.result !== null;
}

/** What a sign-up's own check of its address says (the part of the result the bonus rests on). */
export type SignupCheck = Pick<VerificationResult, 'isValid' | 'isFree' | 'isDisposable'> & {
  checks: { smtp: { checked: boolean } };
};

/**
 * Whether sign-up earns WORK_EMAIL_BONUS: our own check found a mail server that takes the address
 * (a catch-all server counts), and it is neither free nor disposable. An MX that could not be
 * reached earns nothing, or the bonus could be farmed with made-up domains.
 */
export function earnsWorkBonus(check: SignupCheck): boolean {
  return check.isValid && check.checks.smtp.checked && !check.isFree && !check.isDisposable;
}

/** The grants of a sign-up, in order: the base, then the bonus when it is earned. */
export function signupGrants(workAddress: boolean): Array<{ amount: number; reason: string }> {
  const grants = [{ amount: SIGNUP_GRANT, reason: 'signup' }];
  if (workAddress) grants.push({ amount: WORK_EMAIL_BONUS, reason: 'signup bonus: work email' });
  return grants;
}
