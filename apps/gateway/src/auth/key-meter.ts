import type { Response } from 'express';
import type { AppConfig } from '@mailguard/config';
import { ApiKeys, type Authenticated } from '@mailguard/keys';
import type { RateDecision, RateLimiter } from '@mailguard/ratelimit';
import { setCreditsRemaining } from './access';

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

  /** null when no key was sent or the key is unknown or revoked. */
  async meter(presented: string | undefined, res: Response): Promise<Metered | null> {
    if (!presented) return null;
    const auth = await this.keys.authenticate(presented.trim());
    if (!auth) return null;
    if (auth.key.type === 'widget') return { auth, decision: null };
    setCreditsRemaining(res, auth.account.balance);
    const decision = await this.limiter.hit(`key:${auth.key.id}`, this.config.http.rateLimitPerMinute, 60_000);
    res.setHeader('RateLimit-Limit', String(decision.limit));
    res.setHeader('RateLimit-Remaining', String(decision.remaining));
    res.setHeader('RateLimit-Reset', String(decision.resetSeconds));
    if (!decision.allowed) res.setHeader('Retry-After', String(Math.max(1, decision.resetSeconds)));
    return { auth, decision };
  }
}
