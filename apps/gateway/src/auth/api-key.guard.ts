import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { AppError } from '@mailguard/errors';
import { ACCESS, type AccessRule, type AuthedRequest } from './access';
import { KeyMeter } from './key-meter';

/**
 * One guard for every route, in the order API.md asks: the key (401), the rate limit (429, decided
 * before anything is charged), then the scope (403). Headers for a valid key are set first, so
 * every response carries them whatever its status.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly meter: KeyMeter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const rule = this.reflector.getAllAndOverride<AccessRule | undefined>(ACCESS, [context.getHandler(), context.getClass()]);
    // A route that forgot to declare its access is closed, not open.
    if (!rule) throw new AppError('forbidden', 'This route declares no access rule');
    if (rule.public) return true;

    const req = context.switchToHttp().getRequest<Request>();
    const res = context.switchToHttp().getResponse<Response>();
    const presented = req.header('x-api-key');
    if (!presented) throw new AppError('unauthorized', 'Missing API key: send it in the X-API-Key header');
    const metered = await this.meter.meter(presented, req.ip ?? '', res);
    if (!metered) throw new AppError('unauthorized', 'Invalid or revoked API key');
    const { auth, decision } = metered;
    if (!decision) throw new AppError('forbidden', 'Widget keys work only on POST /v1/widget/verify');
    if (!decision.allowed) {
      throw new AppError('rate_limited', `Rate limit of ${decision.limit} requests per minute exceeded; retry in ${Math.max(1, decision.resetSeconds)} s`);
    }
    if (!rule.scopes.includes(auth.key.scope)) {
      throw new AppError('forbidden', `This key's scope (${auth.key.scope}) does not allow this endpoint; allowed: ${rule.scopes.join(', ')}`);
    }
    (req as AuthedRequest).auth = auth;
    return true;
  }
}
