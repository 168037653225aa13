import type { Response } from 'express';
import type { AppConfig } from '@mailguard/config';
import { AppError } from '@mailguard/errors';
import { ApiKeys, type Authenticated } from '@mailguard/keys';
import type { RateDecision, RateLimiter } from '@mailguard/ratelimit';
import { setCreditsRemaining } from './access';

/**
 * Key guessing: failed look-ups per client IP in a rolling window. Past it, that IP's unknown keys get
 * 429 instead of 401 until the window frees; a valid key from the same IP is never held back.
 */
export const AUTH_FAILURES = { limit: 20, windowMs: 10 * 60_000 };

export interface Metered {
  auth: Authenticated;
  /** null for widget keys: they are not metered on the REST API. */
  decision: RateDecision | null;
}

/**
 * Recognises the secret key of a request and counts it against its rolling window, setting
 * `X-Credits-Remaining` and `RateLimit-*` (API.md §2, §3). Shared by the guard and by the 404
 * answers, so every response to a valid secret key carries the headers, whatever its status.
 */
export class KeyMeter {
  constructor(
    private readonly keys: ApiKeys,
    private readonly limiter: RateLimiter,
    private readonly config: AppConfig,
  ) {}

  /**
   * null when no key was sent or the key is unknown or revoked; an unknown key from a client IP that
   * has failed too often throws 429 (with Retry-After).
   */
  async meter(presented: string | undefined, clientIp: string, res: Response): Promise<Metered | null> {
    if (!presented) return null;
    const auth = await this.keys.authenticate(presented.trim());
    if (!auth) {
      await this.unknownKey(clientIp, res);
      return null;
    }
    if (auth.key.type === 'widget') return { auth, decision: null };
    setCreditsRemaining(res, auth.account.balance);
    const decision = await this.limiter.hit(`key:${auth.key.id}`, this.config.http.rateLimitPerMinute, 60_000);
    res.setHeader('RateLimit-Limit', String(decision.limit));
    res.setHeader('RateLimit-Remaining', String(decision.remaining));
    res.setHeader('RateLimit-Reset', String(decision.resetSeconds));
    if (!decision.allowed) res.setHeader('Retry-After', String(Math.max(1, decision.resetSeconds)));
    return { auth, decision };
  }

  /** Counts a key that was not found against its client IP: 429 once the IP has failed too often. */
  async unknownKey(clientIp: string, res: Response): Promise<void> {
    const failures = await this.limiter.hit(`authfail:${clientIp}`, AUTH_FAILURES.limit, AUTH_FAILURES.windowMs);
    if (failures.allowed) return;
    const wait = Math.max(1, failures.resetSeconds);
    res.setHeader('Retry-After', String(wait));
    throw new AppError('rate_limited', `Too many requests with unknown API keys from this address; retry in ${wait} s`);
  }
}
