import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import { BullBoardModule } from '@bull-board/nestjs';
import type { DynamicModule } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { QUEUE_NAMES } from '@mailguard/queue';
import type { RateLimiter } from '@mailguard/ratelimit';
import { AdminToken } from '../auth/admin-token';
import { AuthModule } from '../auth/auth.module';
import { RATE_LIMITER } from '../auth/tokens';

/** Where the board is served, outside the /v1 prefix. */
export const BULL_BOARD_ROUTE = 'admin/queues';

/**
 * A request the board's own page sent: a browser names the page's origin on every request that
 * changes something (Origin), or says it is same-origin (Sec-Fetch-Site).
 */
function sameOrigin(req: IncomingMessage): boolean {
  if (req.headers['sec-fetch-site'] === 'same-origin') return true;
  const origin = req.headers.origin;
  if (!origin) return false;
  try {
    return new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}

/** The board's requests as Nest's middleware sees them on Fastify: Node's, with the client's address. */
type BoardRequest = IncomingMessage & { ip?: string };

function answer(res: ServerResponse, status: number, body: { error: string; code: string }): void {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
}

/**
 * `Authorization: Bearer <token>`, or HTTP Basic with the token as password (so a browser can open
 * it); wrong tokens are throttled per client IP (AdminToken). A browser replays cached Basic
 * credentials to any page's form POST, so a request that changes something (a job added, retried,
 * removed) with them must come from the board's own page.
 */
async function admit(token: AdminToken, req: BoardRequest, res: ServerResponse, next: () => void): Promise<void> {
  const header = req.headers.authorization ?? '';
  const bearer = /^Bearer (.+)$/i.exec(header)?.[1];
  const basic = /^Basic (.*)$/i.exec(header)?.[1];
  const password =
    basic === undefined ? undefined : Buffer.from(basic, 'base64').toString('utf8').split(':').slice(1).join(':');
  const given = bearer ?? password;
  // No credential at all (a browser's first visit) is not a guess: asked for one, not counted.
  if (given !== undefined && (await token.verify(given, req.ip ?? ''))) {
    if (bearer !== undefined || req.method === 'GET' || req.method === 'HEAD' || sameOrigin(req)) return next();
    answer(res, 403, { error: 'The queue board takes changes only from its own page', code: 'csrf' });
    return;
  }
  res.setHeader('WWW-Authenticate', 'Basic realm="MailGuard queues"');
  answer(res, 401, { error: 'The queue board needs the admin token', code: 'unauthorized' });
}

/** Nest middleware (`admit`), its refusals (429 past too many wrong tokens) handed to the error filter. */
function adminOnly(token: AdminToken) {
  return (req: BoardRequest, res: ServerResponse, next: (error?: unknown) => void): void => {
    admit(token, req, res, next).catch(next);
  };
}

/** Bull Board for operators over every queue, behind ADMIN_TOKEN (only with REDIS_URL: queues to show). */
export function queueBoard(token: string): DynamicModule[] {
  return [
    BullBoardModule.forRootAsync({
      imports: [AuthModule],
      inject: [RATE_LIMITER],
      useFactory: (limiter: RateLimiter) => ({
        route: BULL_BOARD_ROUTE,
        adapter: FastifyAdapter,
        middleware: adminOnly(new AdminToken(token, limiter)),
      }),
    }),
    BullBoardModule.forFeature(...QUEUE_NAMES.map((name) => ({ name, adapter: BullMQAdapter }))),
  ];
}
