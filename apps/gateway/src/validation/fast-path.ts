import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { ArgumentMetadata, HttpServer, PipeTransform } from '@nestjs/common';
import type { Express, Request, Response } from 'express';
import { MAX_ADDRESS_INPUT } from '@mailguard/errors';
import type { Logger } from '@mailguard/logger';
import type { Metrics } from '@mailguard/metrics';
import { routeArea, routeScopes, type AuthedRequest } from '../auth/access';
import { authorize } from '../auth/api-key.guard';
import type { KeyMeter } from '../auth/key-meter';
import { answerError } from '../http/error.filter';
import { ValidationController } from './validation.controller';
import { CachedAnswer, type VerificationService } from './verification.service';

/** The single check's route, as Express names it (the request metrics' label). */
const ROUTE = '/v1/email-validation/:email';
const PREFIX = ROUTE.slice(0, ROUTE.lastIndexOf('/') + 1);
const PARAM: ArgumentMetadata = { type: 'param', data: 'email', metatype: String };

/** A middleware of the app's, run before its routes. */
export type Middleware = (req: Request, res: Response, next: () => void) => void;

export interface FastPathParts {
  controller: ValidationController;
  verifications: VerificationService;
  meter: KeyMeter;
  /** The app's global pipes, in their order. */
  pipes: PipeTransform[];
  adapter: HttpServer;
  /** The Express app, whose request and response methods the answer uses. */
  express: Express;
  /** The middlewares every request passes before the routes (request id and log, metrics, headers), in order. */
  before: Middleware[];
  logger: Logger;
  metrics: Metrics;
}

/**
 * The path parameter of a plain `GET /v1/email-validation/:email`, decoded as the router decodes
 * it; null for anything else: another route, another method (HEAD too), a query string, a body
 * (the body parsers would read it), a percent-encoding that does not decode (the router's 400).
 */
function plainSingleCheck(req: IncomingMessage): string | null {
  const url = req.url as string;
  if (req.method !== 'GET' || !url.startsWith(PREFIX)) return null;
  if (req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined) return null;
  const raw = url.slice(PREFIX.length);
  if (raw === '' || raw.includes('/') || raw.includes('?')) return null;
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}

/** What `res.json` sends for a JSON text, without serialising it again (Express 5's `res.send`, minus ETag and HEAD: not on this path). */
function sendJson(res: ServerResponse, json: string): void {
  res.statusCode = 200;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', String(Buffer.byteLength(json)));
  res.end(json);
}

/**
 * The single check without Express's router or Nest's (issue 18: most of a cached check's CPU was
 * theirs): a `request` listener in front of the Express app, which answers a plain single check
 * itself — what `app.handle` sets up, the middlewares before the routes, then the very steps Nest
 * would take: the guard's `authorize`, the global pipes, the controller's `single`, the reply (a
 * cached answer's JSON text as it is), the error filter's `answerError` — and hands every other
 * request to Express unchanged. Nothing of a rule is here, only the order Nest calls them in;
 * test/e2e/fast-path.e2e-spec.ts compares the two answers byte for byte.
 */
export function singleCheckFastPath({
  controller,
  verifications,
  meter,
  pipes,
  adapter,
  express,
  before,
  logger,
  metrics,
}: FastPathParts): (req: IncomingMessage, res: ServerResponse) => boolean {
  const scopes = routeScopes(ValidationController, 'single');
  const area = routeArea(ValidationController, 'single');
  const answer = async (req: Request, res: Response, raw: string): Promise<void> => {
    // The cached answer is read while the key's requests are counted (Redis commands of one turn go
    // in one write): one round trip for both. Used only once the request is admitted and the pipes
    // have left the address as it was; a request refused before drops it unseen.
    const ahead =
      req.headers['x-api-key'] && raw.length <= MAX_ADDRESS_INPUT ? verifications.readAnswer(raw) : undefined;
    ahead?.catch(() => undefined);
    await authorize(meter, req, res, scopes, area);
    let email: unknown = raw;
    for (const pipe of pipes) email = await pipe.transform(email, PARAM);
    const result = await controller.single(
      email as string,
      req as AuthedRequest,
      res,
      email === raw ? ahead : undefined,
    );
    if (result instanceof CachedAnswer) sendJson(res, result.json);
    else adapter.reply(res, result, 200);
  };
  return (req, res) => {
    const email = plainSingleCheck(req);
    if (email === null) return false;
    // What Express's app.handle and router give every request (the answer uses Express's req and res).
    const request = req as Request;
    const response = res as Response;
    request.res = response;
    response.req = request;
    Object.setPrototypeOf(req, express.request);
    Object.setPrototypeOf(res, express.response);
    response.locals = Object.create(null) as Record<string, unknown>;
    request.baseUrl = '';
    request.originalUrl = req.url as string;
    metrics.httpFastPath.inc();
    // What the router would have matched, for the request metrics.
    request.route = { path: ROUTE };
    let passed = 0;
    const next = (): void => {
      if (passed < before.length) before[passed++](request, response, next);
      else
        answer(request, response, email).catch((error: unknown) =>
          answerError(error, request, response, logger, meter),
        );
    };
    next();
    return true;
  };
}

/** Puts the fast path in front of the app's own `request` listener (Express). */
export function installFastPath(
  server: Server,
  fastPath: (req: IncomingMessage, res: ServerResponse) => boolean,
): void {
  const listeners = server.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>;
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (!fastPath(req, res)) for (const listener of listeners) listener(req, res);
  });
}
