import { timingSafeEqual } from 'node:crypto';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { BullBoardModule } from '@bull-board/nestjs';
import type { DynamicModule } from '@nestjs/common';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { QUEUE_NAMES } from '@mailguard/queue';

/** Where the board is served, outside the /v1 prefix. */
export const BULL_BOARD_ROUTE = 'admin/queues';

function matches(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** `Authorization: Bearer <token>`, or HTTP Basic with the token as password (so a browser can open it). */
function adminOnly(token: string): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const header = req.header('authorization') ?? '';
    const bearer = /^Bearer (.+)$/i.exec(header)?.[1];
    const basic = /^Basic (.+)$/i.exec(header)?.[1];
    const password = basic ? Buffer.from(basic, 'base64').toString('utf8').split(':').slice(1).join(':') : undefined;
    if ((bearer && matches(bearer, token)) || (password && matches(password, token))) return next();
    res.setHeader('WWW-Authenticate', 'Basic realm="MailGuard queues"');
    res.status(401).json({ error: 'The queue board needs the admin token' });
  };
}

/** Bull Board for operators over every queue, behind ADMIN_TOKEN (only with REDIS_URL: queues to show). */
export function queueBoard(token: string): DynamicModule[] {
  return [
    BullBoardModule.forRoot({ route: BULL_BOARD_ROUTE, adapter: ExpressAdapter, middleware: adminOnly(token) }),
    BullBoardModule.forFeature(...QUEUE_NAMES.map((name) => ({ name, adapter: BullMQAdapter }))),
  ];
}
