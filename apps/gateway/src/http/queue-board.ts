import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import { BullBoardModule } from '@bull-board/nestjs';
import type { DynamicModule } from '@nestjs/common';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { QUEUE_NAMES } from '@mailguard/queue';
import type { AdminToken } from '../auth/admin-token';

/** Where the board is served, outside the /v1 prefix. */
export const BULL_BOARD_ROUTE = 'admin/queues';
const BOARD_PATH = `/${BULL_BOARD_ROUTE}`;

/**
 * A request the board's own page sent: a browser names the page's origin on every request that
 * changes something (Origin), or says it is same-origin (Sec-Fetch-Site).
 */
function sameOrigin(req: FastifyRequest): boolean {
  if (req.headers['sec-fetch-site'] === 'same-origin') return true;
  const origin = req.headers.origin;
  if (!origin) return false;
  try {
    return new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}

/**
 * `Authorization: Bearer <token>`, or HTTP Basic with the token as password (so a browser can open
 * it); wrong tokens are throttled per client IP (AdminToken). A browser replays cached Basic
 * credentials to any page's form POST, so a request that changes something (a job added, retried,
 * removed) with them must come from the board's own page.
 */
async function admit(token: AdminToken, req: FastifyRequest, reply: FastifyReply): Promise<boolean> {
  const header = req.headers.authorization ?? '';
  const bearer = /^Bearer (.+)$/i.exec(header)?.[1];
  const basic = /^Basic (.*)$/i.exec(header)?.[1];
  const password =
    basic === undefined ? undefined : Buffer.from(basic, 'base64').toString('utf8').split(':').slice(1).join(':');
  const given = bearer ?? password;
  // No credential at all (a browser's first visit) is not a guess: asked for one, not counted.
  if (given !== undefined && (await token.verify(given, req.ip))) {
    if (bearer !== undefined || req.method === 'GET' || req.method === 'HEAD' || sameOrigin(req)) return true;
    void reply.code(403).send({ error: 'The queue board takes changes only from its own page', code: 'csrf' });
    return false;
  }
  void reply
    .header('WWW-Authenticate', 'Basic realm="MailGuard queues"')
    .code(401)
    .send({ error: 'The queue board needs the admin token', code: 'unauthorized' });
  return false;
}

/**
 * The board's lock: a request hook over every path under /admin/queues (the board is a Fastify plugin
 * of Bull Board's, whose page and API are not Nest routes; Nest middleware on Fastify would match
 * the page's path alone). Its refusals past too many wrong tokens (429) are answered by `fail`: the
 * board's plugin has an error handler of its own, which would make them 500s.
 */
export function queueBoardLock(
  token: AdminToken,
  fail: (error: unknown, request: FastifyRequest, reply: FastifyReply) => void,
) {
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    // The route the router matched, not the raw URL: the router decodes it (/admin/%71ueues is the board).
    const path = request.routeOptions.url ?? '';
    if (path !== BOARD_PATH && !path.startsWith(`${BOARD_PATH}/`)) return done();
    admit(token, request, reply).then(
      (admitted) => admitted && done(),
      (error: unknown) => fail(error, request, reply),
    );
  };
}

/**
 * Bull Board for operators over every queue (only with REDIS_URL: queues to show, and ADMIN_TOKEN),
 * locked by `queueBoardLock`.
 */
export function queueBoard(): DynamicModule[] {
  return [
    BullBoardModule.forRoot({ route: BULL_BOARD_ROUTE, adapter: FastifyAdapter, middleware: [] }),
    BullBoardModule.forFeature(...QUEUE_NAMES.map((name) => ({ name, adapter: BullMQAdapter }))),
  ];
}
