import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { KeyScope } from '@mailguard/db';
import { AppError } from '@mailguard/errors';
import { CSRF_COOKIE, csrfMatches, roleAllows, SESSION_COOKIE, type Principal, type Right } from '@mailguard/accounts';
import type { RateDecision } from '@mailguard/ratelimit';
import { ACCESS, AREA, type AccessRule, type AuthedRequest } from './access';
import { headerOf } from '../http/request-headers';
import { readCookie } from './cookies';
import { KeyMeter, retryAfter } from './key-meter';

/**
 * What a metered key may do, in the order docs/api.md asks once the key is known: the rate limit (429,
 * decided before anything is charged), then the scope (403). Shared by REST routes and MCP tools.
 */
export function admit(auth: Principal, decision: RateDecision, scopes: KeyScope[], area: Right | null = null): void {
  assertActive(auth);
  if (!decision.allowed) {
    const wait = retryAfter(decision);
    throw new AppError(
      'rate_limited',
      `Rate limit of ${decision.limit} requests per minute exceeded; retry in ${wait} s`,
      { retryAfterSeconds: wait },
    );
  }
  if (auth.session) {
    // A session is a `full` key of its account, narrowed by the person's role (roles.ts).
    if (!scopes.includes('full') || area === null || !roleAllows(auth.session.role, area))
      throw new AppError('forbidden', `Your role (${auth.session.role}) does not allow this endpoint`);
    return;
  }
  if (!scopes.includes(auth.key.scope)) {
    throw new AppError(
      'forbidden',
      `This key's scope (${auth.key.scope}) does not allow this endpoint; allowed: ${scopes.join(', ')}`,
    );
  }
}

/** A suspended account's keys and sessions are refused (403 `account_suspended`), whatever they ask for. */
export function assertActive(auth: Principal): void {
  if (auth.account.status === 'suspended') {
    throw new AppError('account_suspended', 'This account is suspended; contact support');
  }
}

/**
 * A metered route's checks, in the order docs/api.md asks: the key (401), the rate limit (429), then the
 * scope (403). Headers for a valid key are set first, so every response carries them whatever its
 * status.
 */
async function authorize(
  meter: KeyMeter,
  req: FastifyRequest,
  res: FastifyReply,
  scopes: KeyScope[],
  area: Right | null = null,
): Promise<void> {
  const presented = headerOf(req, 'x-api-key');
  // A key sent wins over a session cookie: scripts run in a browser someone is signed in to.
  if (!presented) return authorizeSession(meter, req, res, scopes, area);
  const metered = await meter.meter(presented, req.ip, res);
  if (!metered) throw new AppError('unauthorized', 'Invalid or revoked API key');
  const { auth, decision } = metered;
  if (!decision) throw new AppError('forbidden', 'Widget keys work only on POST /v1/widget/verify');
  admit(auth, decision, scopes);
  (req as AuthedRequest).auth = auth;
}

/** Methods that change nothing: the only ones a cookie-authenticated request may send without the CSRF token. */
const SAFE_METHODS = new Set(['GET', 'HEAD']);

/**
 * A request with no key but a session cookie (docs/api.md#accounts-sessions-and-members): the
 * session (401 when unknown or ended), the account's status, the rate limit, the CSRF token for
 * anything but GET and HEAD (403 `csrf`), then the role.
 */
async function authorizeSession(
  meter: KeyMeter,
  req: FastifyRequest,
  res: FastifyReply,
  scopes: KeyScope[],
  area: Right | null,
): Promise<void> {
  const token = readCookie(req, SESSION_COOKIE);
  if (!token) throw new AppError('unauthorized', 'Missing API key: send it in the X-API-Key header, or sign in');
  const metered = await meter.meterSession(token, res);
  if (!metered) throw new AppError('unauthorized', 'Your session has ended: sign in again');
  const { auth, decision } = metered;
  assertCsrf(req, auth.session.csrf);
  admit(auth, decision, scopes, area);
  (req as AuthedRequest).auth = auth;
}

/** 403 `csrf` unless a state-changing request carries its session's CSRF token in `X-CSRF-Token`, and the cookie agrees. */
export function assertCsrf(req: FastifyRequest, expected: string): void {
  if (SAFE_METHODS.has(req.method)) return;
  const header = headerOf(req, 'x-csrf-token');
  if (!csrfMatches(header, expected) || !csrfMatches(readCookie(req, CSRF_COOKIE) ?? undefined, expected))
    throw new AppError('csrf', 'Missing or wrong X-CSRF-Token: send the value of the mg_csrf cookie');
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
    const area = this.reflector.getAllAndOverride<Right | undefined>(AREA, [context.getHandler(), context.getClass()]);
    await authorize(
      this.meter,
      http.getRequest<FastifyRequest>(),
      http.getResponse<FastifyReply>(),
      rule.scopes,
      area ?? null,
    );
    return true;
  }
}
