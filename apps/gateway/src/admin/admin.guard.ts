import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '@mailguard/config';
import { AppError } from '@mailguard/errors';
import type { RateLimiter } from '@mailguard/ratelimit';
import { AdminToken } from '../auth/admin-token';
import { RATE_LIMITER } from '../auth/tokens';

/**
 * The operator console's credential (docs/operations.md#operator-console): ADMIN_TOKEN as
 * `Authorization: Bearer <token>` only (never a query string, never cookies), compared in constant
 * time, wrong tokens throttled per client IP by the same rule as the queue board's (AdminToken).
 * Without ADMIN_TOKEN the console's routes are not mounted at all (AdminModule), so they answer 404.
 */
@Injectable()
export class AdminGuard implements CanActivate {
  private readonly token: AdminToken | null;

  constructor(@Inject(APP_CONFIG) config: AppConfig, @Inject(RATE_LIMITER) limiter: RateLimiter) {
    this.token = config.admin.token ? new AdminToken(config.admin.token, limiter) : null;
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<FastifyRequest>();
    if (!this.token) throw new AppError('not_found', `Cannot ${req.method} ${req.url.split('?')[0]}`);
    const given = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (given === undefined)
      throw new AppError(
        'unauthorized',
        'The operator console needs the admin token: Authorization: Bearer <ADMIN_TOKEN>',
      );
    if (!(await this.token.verify(given, req.ip))) throw new AppError('unauthorized', 'Wrong admin token');
    return true;
  }
}
