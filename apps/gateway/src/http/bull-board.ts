import { timingSafeEqual } from 'node:crypto';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Queue } from 'bullmq';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

export const BULL_BOARD_PATH = '/admin/queues';

function matches(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Bull Board for operators, behind ADMIN_TOKEN: `Authorization: Bearer <token>`, or HTTP Basic with
 * the token as password (so a browser can open it).
 */
export function bullBoard(queues: Queue[], token: string): RequestHandler[] {
  const adapter = new ExpressAdapter();
  adapter.setBasePath(BULL_BOARD_PATH);
  createBullBoard({ queues: queues.map((queue) => new BullMQAdapter(queue)), serverAdapter: adapter });
  const guard: RequestHandler = (req: Request, res: Response, next: NextFunction) => {
    const header = req.header('authorization') ?? '';
    const bearer = /^Bearer (.+)$/i.exec(header)?.[1];
    const basic = /^Basic (.+)$/i.exec(header)?.[1];
    const password = basic ? Buffer.from(basic, 'base64').toString('utf8').split(':').slice(1).join(':') : undefined;
    if ((bearer && matches(bearer, token)) || (password && matches(password, token))) return next();
    res.setHeader('WWW-Authenticate', 'Basic realm="MailGuard queues"');
    res.status(401).json({ error: 'The queue board needs the admin token' });
  };
  return [guard, adapter.getRouter() as RequestHandler];
}
