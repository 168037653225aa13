import { timingSafeEqual } from 'node:crypto';
import { AppError } from '@mailguard/errors';
import type { RateDecision, RateLimiter } from '@mailguard/ratelimit';
import { AUTH_FAILURES, retryAfter } from './key-meter';

/** Whether a credential given equals the configured one, in constant time. */
export function sameSecret(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function throttled(decision: RateDecision): AppError {
  const wait = retryAfter(decision);
  return new AppError('rate_limited', `Too many wrong admin tokens from this address; retry in ${wait} s`, {
    retryAfterSeconds: wait,
  });
}

/**
 * The admin token (ADMIN_TOKEN) of operator surfaces, against guessing: wrong tokens are counted
 * per client IP like unknown API keys (AUTH_FAILURES, in a count of their own, in the same store).
 * Past the limit every admin request from that IP is answered 429 until the window frees, the
 * right token's too, unlike API keys: those are 32 random characters, an admin token is whatever
 * the operator chose, and an answer that still told the right token from wrong ones would let the
 * guessing go on.
 */
export class AdminToken {
  constructor(
    private readonly token: string,
    private readonly limiter: RateLimiter,
  ) {}

  /** Whether `given` is the token; throws 429 (with its wait) while `clientIp` is throttled. */
  async verify(given: string, clientIp: string): Promise<boolean> {
    const key = `adminfail:${clientIp}`;
    const state = await this.limiter.peek(key, AUTH_FAILURES.limit, AUTH_FAILURES.windowMs);
    if (!state.allowed) throw throttled(state);
    if (sameSecret(given, this.token)) return true;
    const failures = await this.limiter.hit(key, AUTH_FAILURES.limit, AUTH_FAILURES.windowMs);
    // Another wrong token from the same address may have filled the window since the peek.
    if (!failures.allowed) throw throttled(failures);
    return false;
  }
}
