import { ArgumentsHost, Catch, ExceptionFilter, HttpException } from '@nestjs/common';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { DatabaseUnavailableError, isDatabaseConnectionError } from '@mailguard/db';
import { AppError, ERROR_STATUS, type ErrorCode } from '@mailguard/errors';
import type { Logger } from '@mailguard/logger';
import { isRedisConnectionError, RedisUnavailableError } from '@mailguard/redis';
import { setCreditsRemaining, type AuthedRequest } from '../auth/access';
import type { KeyMeter } from '../auth/key-meter';
import { headerOf } from './request-headers';

interface ErrorBody {
  error: string;
  code: string;
}

function noRouteMessage(req: FastifyRequest): string {
  return `No route for ${req.method} ${req.url.split('?')[0]}`;
}

/**
 * 404 for a path no route serves, inside `/v1` or not. A valid secret key still gets its
 * rate-limit and credit headers (docs/api.md#authentication: every response, whatever its status).
 */
export async function answerNoRoute(req: FastifyRequest, reply: FastifyReply, meter: KeyMeter): Promise<void> {
  try {
    await meter.meter(headerOf(req, 'x-api-key'), req.ip, reply);
  } catch {
    // The headers are a courtesy here; the answer is 404 all the same.
  }
  if (!reply.sent) void reply.code(404).send({ error: noRouteMessage(req), code: 'not_found' });
}

function httpExceptionMessage(exception: HttpException): string {
  const response = exception.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.join('; ');
  if (typeof message === 'string') return message;
  return exception.message;
}

/** Every error body has a code (docs/api.md#errors): the one of its status, for errors Fastify or Nest raised. */
function codeOf(status: number): ErrorCode {
  const known = (Object.entries(ERROR_STATUS) as Array<[ErrorCode, number]>).find(([, code]) => code === status);
  return known?.[0] ?? (status >= 500 ? 'internal' : 'bad_request');
}

/** What Fastify refuses before a route's handler runs (the body, the URL), said in the API's words. */
const FASTIFY_MESSAGES: Record<string, string> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'The request body is not valid JSON',
  FST_ERR_CTP_BODY_TOO_LARGE: 'The request body is over the limit of its route',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'The request body is not as long as its Content-Length',
  FST_ERR_BAD_URL: 'The URL holds a malformed percent-encoding',
};

function isFastifyError(exception: unknown): exception is FastifyError & { statusCode: number } {
  const { code, statusCode } = exception as Partial<FastifyError>;
  return (
    exception instanceof Error &&
    typeof code === 'string' &&
    code.startsWith('FST_') &&
    typeof statusCode === 'number' &&
    statusCode >= 400 &&
    statusCode < 500
  );
}

/** A failure as its status and REST error body (docs/api.md#errors); the MCP tools answer the same body. */
export function describeError(exception: unknown): { status: number; body: ErrorBody } {
  if (isDatabaseConnectionError(exception)) return describeError(new DatabaseUnavailableError(exception));
  if (isRedisConnectionError(exception)) return describeError(new RedisUnavailableError(exception));
  if (exception instanceof AppError) {
    return { status: exception.status, body: { error: exception.message, code: exception.code } };
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    return { status, body: { error: httpExceptionMessage(exception), code: codeOf(status) } };
  }
  if (isFastifyError(exception)) {
    const status = exception.statusCode;
    return { status, body: { error: FASTIFY_MESSAGES[exception.code] ?? exception.message, code: codeOf(status) } };
  }
  return { status: 500, body: { error: 'Internal server error; retry after a short delay', code: 'internal' } };
}

/**
 * The one place where failures become HTTP: every error body is `{ error }` (plus an optional
 * machine `code`), never a stack trace; unexpected errors are logged with the request id. Nest's
 * filter of every route, and of what Fastify raises before one (hooks, body parsing, unknown paths).
 */
export function answerError(
  exception: unknown,
  req: FastifyRequest,
  res: FastifyReply,
  logger: Logger,
  meter: KeyMeter,
): void {
  if (exception instanceof HttpException && exception.getStatus() === 404 && /^Cannot \w+ /.test(exception.message)) {
    void answerNoRoute(req, res, meter);
    return;
  }
  const { status, body } = describeError(exception);
  if (status >= 500) {
    logger.error({ err: exception, reqId: req.id, url: req.url }, 'request failed');
  }
  if (res.sent || res.raw.headersSent) {
    res.raw.end();
    return;
  }
  // The balance as it stands now (a 402 has just read it), not as the guard saw it.
  const { auth } = req as Partial<AuthedRequest>;
  if (auth?.session || auth?.key.type === 'secret') setCreditsRemaining(res, auth.account.balance);
  // A refusal that says when to come back says it in the header too (upload staging limits).
  if (exception instanceof AppError && exception.retryAfterSeconds !== undefined && !res.hasHeader('Retry-After'))
    res.header('Retry-After', String(exception.retryAfterSeconds));
  void res.code(status).type('application/json; charset=utf-8').send(body);
}

@Catch()
export class ErrorFilter implements ExceptionFilter {
  constructor(
    private readonly logger: Logger,
    private readonly meter: KeyMeter,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    answerError(exception, http.getRequest(), http.getResponse(), this.logger, this.meter);
  }
}
