import { timingSafeEqual } from 'node:crypto';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { BullBoardModule } from '@bull-board/nestjs';
import type { DynamicModule } from '@nestjs/common';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { QUEUE_NAMES } from '@mailguard/queue';

/** Where the board is served, outside the /v1 prefix. */
export const BULL_BOARD_ROUTE = 'admin/queues';

/** Whether a credential given equals the configured one, in constant time. */
export function sameSecret(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * A request the board's own page sent: a browser names the page's origin on every request that
 * changes something (Origin), or says it is same-origin (Sec-Fetch-Site).
 */
function sameOrigin(req: Request): boolean {
  if (req.header('sec-fetch-site') === 'same-origin') return true;
  const origin = req.header('origin');
  if (!origin) return false;
  try {
    return new URL(origin).host === req.header('host');
  } catch {
    return false;
  }
}

/**
 * `Authorization: Bearer <token>`, or HTTP Basic with the token as password (so a browser can open
 * it). A browser replays cached Basic credentials to any page's form POST, so a request that
 * changes something (a job added, retried, removed) with them must come from the board's own page.
 */
function adminOnly(token: string): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const header = req.header('authorization') ?? '';
    const bearer = /^Bearer (.+)$/i.exec(header)?.[1];
    const basic = /^Basic (.+)$/i.exec(header)?.[1];
    const password = basic ? Buffer.from(basic, 'base64').toString('utf8').split(':').slice(1).join(':') : undefined;
    if (bearer && sameSecret(bearer, token)) return next();
    if (password && sameSecret(password, token)) {
      if (req.method === 'GET' || req.method === 'HEAD' || sameOrigin(req)) return next();
      res.status(403).json({ error: 'The queue board takes changes only from its own page', code: 'csrf' });
      return;
    }
    res.setHeader('WWW-Authenticate', 'Basic realm="MailGuard queues"');
    res.status(401).json({ error: 'The queue board needs the admin token', code: 'unauthorized' });
  };
}

/** Bull Board for operators over every queue, behind ADMIN_TOKEN (only with REDIS_URL: queues to show). */
export function queueBoard(token: string): DynamicModule[] {
  return [
    BullBoardModule.forRoot({ route: BULL_BOARD_ROUTE, adapter: ExpressAdapter, middleware: adminOnly(token) }),
    BullBoardModule.forFeature(...QUEUE_NAMES.map((name) => ({ name, adapter: BullMQAdapter }))),
  ];
}
