import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import type { KeyScope } from '@mailguard/db';
import { AppError } from '@mailguard/errors';
import type { Authenticated } from '@mailguard/keys';
import type { RateDecision } from '@mailguard/ratelimit';
import { ACCESS, type AccessRule, type AuthedRequest } from './access';
import { KeyMeter, retryAfter } from './key-meter';

/**
 * What a metered key may do, in the order docs/api.md asks once the key is known: the rate limit (429,
 * decided before anything is charged), then the scope (403). Shared by REST routes and MCP tools.
 */
export function admit(auth: Authenticated, decision: RateDecision, scopes: KeyScope[]): void {
  assertActive(auth);
  if (!decision.allowed) {
    const wait = retryAfter(decision);
    throw new AppError(
      'rate_limited',
      `Rate limit of ${decision.limit} requests per minute exceeded; retry in ${wait} s`,
      { retryAfterSeconds: wait },
    );
  }
  if (!scopes.includes(auth.key.scope)) {
    throw new AppError(
      'forbidden',
      `This key's scope (${auth.key.scope}) does not allow this endpoint; allowed: ${scopes.join(', ')}`,
    );
  }
}

/** A suspended account's keys and sessions are refused (403 `account_suspended`), whatever they ask for. */
export function assertActive(auth: Authenticated): void {
  if (auth.account.status === 'suspended') {
    throw new AppError('account_suspended', 'This account is suspended; contact support');
  }
}

/**
 * A metered route's checks, in the order docs/api.md asks: the key (401), the rate limit (429), then the
 * scope (403). Headers for a valid key are set first, so every response carries them whatever its
 * status. The guard of every route, and the single check's fast path (validation/fast-path.ts).
 */
export async function authorize(meter: KeyMeter, req: Request, res: Response, scopes: KeyScope[]): Promise<void> {
  const presented = req.header('x-api-key');
  if (!presented) throw new AppError('unauthorized', 'Missing API key: send it in the X-API-Key header');
  const metered = await meter.meter(presented, req.ip ?? '', res);
  if (!metered) throw new AppError('unauthorized', 'Invalid or revoked API key');
  const { auth, decision } = metered;
  if (!decision) throw new AppError('forbidden', 'Widget keys work only on POST /v1/widget/verify');
  admit(auth, decision, scopes);
  (req as AuthedRequest).auth = auth;
}

/** One guard for every route: its declared access rule, then `authorize` for the metered ones. */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly meter: KeyMeter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const rule = this.reflector.getAllAndOverride<AccessRule | undefined>(ACCESS, [
      context.getHandler(),
      context.getClass(),
    ]);
    // A route that forgot to declare its access is closed, not open.
    if (!rule) throw new AppError('forbidden', 'This route declares no access rule');
    if (rule.public) return true;
    const http = context.switchToHttp();
    await authorize(this.meter, http.getRequest<Request>(), http.getResponse<Response>(), rule.scopes);
    return true;
  }
}
