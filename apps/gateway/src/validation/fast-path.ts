import type { ArgumentMetadata, HttpServer, PipeTransform } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '@mailguard/logger';
import type { Metrics } from '@mailguard/metrics';
import { routeScopes, type AuthedRequest } from '../auth/access';
import { authorize } from '../auth/api-key.guard';
import type { KeyMeter } from '../auth/key-meter';
import { answerError } from '../http/error.filter';
import { ValidationController } from './validation.controller';

/** The single check's route, as Express names it (the request metrics' label). */
const ROUTE = '/v1/email-validation/:email';
const PREFIX = ROUTE.slice(0, ROUTE.lastIndexOf('/') + 1);
const PARAM: ArgumentMetadata = { type: 'param', data: 'email', metatype: String };

export interface FastPathParts {
  controller: ValidationController;
  meter: KeyMeter;
  /** The app's global pipes, in their order. */
  pipes: PipeTransform[];
  adapter: HttpServer;
  logger: Logger;
  metrics: Metrics;
}

/**
 * The path parameter of a plain `GET /v1/email-validation/:email`, decoded as the router decodes
 * it; null for anything else: another route, another method (HEAD too), a query string, a body
 * (the body parsers would read it), a percent-encoding that does not decode (the router's 400).
 */
function plainSingleCheck(req: Request): string | null {
  if (req.method !== 'GET' || !req.url.startsWith(PREFIX)) return null;
  if (req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined) return null;
  const raw = req.url.slice(PREFIX.length);
  if (raw === '' || raw.includes('/') || raw.includes('?')) return null;
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}

/**
 * The single check without the router (issue 18: half of a cached check's CPU was Express's and
 * Nest's routing): an Express middleware after the request id, metrics and security headers,
 * which answers a plain single check itself through the very steps Nest would take — the guard's
 * `authorize`, the global pipes, the controller's `single`, Nest's reply, the error filter's
 * `answerError` — and hands every other request on unchanged. Nothing of a rule is here, only the
 * order Nest calls them in; test/e2e/fast-path.e2e-spec.ts compares the two answers byte for byte.
 */
export function singleCheckFastPath({ controller, meter, pipes, adapter, logger, metrics }: FastPathParts) {
  const scopes = routeScopes(ValidationController, 'single');
  const answer = async (req: Request, res: Response, raw: string): Promise<void> => {
    await authorize(meter, req, res, scopes);
    let email: unknown = raw;
    for (const pipe of pipes) email = await pipe.transform(email, PARAM);
    const result = await controller.single(email as string, req as AuthedRequest, res);
    adapter.reply(res, result, 200);
  };
  return (req: Request, res: Response, next: NextFunction): void => {
    const email = plainSingleCheck(req);
    if (email === null) return next();
    metrics.httpFastPath.inc();
    // What the router would have matched, for the request metrics.
    req.route = { path: ROUTE };
    answer(req, res, email).catch((error: unknown) => answerError(error, req, res, logger, meter));
  };
}
