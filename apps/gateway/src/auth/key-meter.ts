import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { APP_CONFIG, type AppConfig } from '@mailguard/config';
import { AppError } from '@mailguard/errors';
import { findSession, type Principal, type SessionPrincipal } from '@mailguard/accounts';
import { Database } from '@mailguard/db';
import { ApiKeys, type Authenticated } from '@mailguard/keys';
import type { RateDecision, RateLimiter } from '@mailguard/ratelimit';
import { setCreditsRemaining } from './access';
import { RATE_LIMITER } from './tokens';

/**
 * Key guessing: failed look-ups per client IP in a rolling window. Past it, that IP's unknown keys get
 * 429 instead of 401 until the window frees; a valid key from the same IP is never held back.
 */
export const AUTH_FAILURES = { limit: 20, windowMs: 10 * 60_000 };

/** Seconds to wait before a refused request may be sent again (Retry-After): never 0. */
export function retryAfter(decision: RateDecision): number {
  return Math.max(1, decision.resetSeconds);
}

export interface Metered {
  auth: Principal;
  /** null for widget keys: they are not metered on the REST API. */
  decision: RateDecision | null;
}

/**
 * Recognises the secret key of a request and counts it against its rolling window, setting
 * `X-Credits-Remaining` and `RateLimit-*` (docs/api.md#authentication, docs/api.md#credits). Shared by the guard and by the 404
 * answers, so every response to a valid secret key carries the headers, whatever its status.
 */
@Injectable()
export class KeyMeter {
  constructor(
    private readonly keys: ApiKeys,
    @Inject(RATE_LIMITER) private readonly limiter: RateLimiter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly database: Database,
  ) {}

  /**
   * The person signed in with this session cookie, counted like a key: in a window of the session's
   * own (each browser its 60 a minute, as each key has). null when the session is unknown or ended.
   */
  async meterSession(
    token: string,
    res: FastifyReply,
  ): Promise<{ auth: SessionPrincipal; decision: RateDecision } | null> {
    const auth = await findSession(this.database.dataSource, token);
    if (!auth) return null;
    setCreditsRemaining(res, auth.account.balance);
    return { auth, decision: await this.count(auth, res) };
  }

  /**
   * null when no key was sent or the key is unknown or revoked; an unknown key from a client IP that
   * has failed too often throws 429 (with Retry-After).
   */
  async meter(presented: string | undefined, clientIp: string, res: FastifyReply): Promise<Metered | null> {
    const auth = await this.identify(presented, clientIp, res);
    if (!auth) return null;
    if (auth.key.type === 'widget') return { auth, decision: null };
    setCreditsRemaining(res, auth.account.balance);
    return { auth, decision: await this.count(auth, res) };
  }

  /** The key behind a request, without counting the request: null for none, an unknown or a revoked key. */
  async identify(presented: string | undefined, clientIp: string, res: FastifyReply): Promise<Authenticated | null> {
    if (!presented) return null;
    const auth = await this.keys.authenticate(presented.trim());
    if (!auth) await this.unknownKey(clientIp, res);
    return auth;
  }

  /**
   * Counts one request against the key's rolling window, shared by REST and the MCP tool calls;
   * `res` gets the `RateLimit-*` headers when the answer is an HTTP response of its own.
   */
  async count(auth: Principal, res?: FastifyReply): Promise<RateDecision> {
    const bucket = auth.session ? `session:${auth.session.id}` : `key:${auth.key.id}`;
    const decision = await this.limiter.hit(bucket, this.config.http.rateLimitPerMinute, 60_000);
    if (res) {
      res.header('RateLimit-Limit', String(decision.limit));
      res.header('RateLimit-Remaining', String(decision.remaining));
      res.header('RateLimit-Reset', String(decision.resetSeconds));
      if (!decision.allowed) res.header('Retry-After', String(retryAfter(decision)));
    }
    return decision;
  }

  /** Counts a key that was not found against its client IP: 429 once the IP has failed too often. */
  async unknownKey(clientIp: string, res: FastifyReply): Promise<void> {
    const failures = await this.limiter.hit(`authfail:${clientIp}`, AUTH_FAILURES.limit, AUTH_FAILURES.windowMs);
    if (failures.allowed) return;
    const wait = retryAfter(failures);
    res.header('Retry-After', String(wait));
    throw new AppError(
      'rate_limited',
      `Too many requests with unknown API keys from this address; retry in ${wait} s`,
      { retryAfterSeconds: wait },
    );
  }
}
