import { ArgumentsHost, Catch, ExceptionFilter, HttpException } from '@nestjs/common';
import type { Request, Response } from 'express';
import { DatabaseUnavailableError, isDatabaseConnectionError } from '@mailguard/db';
import { AppError } from '@mailguard/errors';
import type { Logger } from '@mailguard/logger';
import { isRedisConnectionError, RedisUnavailableError } from '@mailguard/redis';

interface ErrorBody {
  error: string;
  code?: string;
}

/** The 404 sentence for a path no route serves, shared with the fallback outside `/v1`. */
export function noRouteMessage(method: string, path: string): string {
  return `No route for ${method} ${path}`;
}

function httpExceptionMessage(exception: HttpException): string {
  // Express raises these before any handler runs; Nest wraps them as 400s.
  if (exception.cause instanceof SyntaxError) return `The request body is not valid JSON: ${exception.cause.message}`;
  if (exception.cause instanceof URIError) return 'The URL holds a malformed percent-encoding';
  const response = exception.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.join('; ');
  if (typeof message === 'string') return message;
  return exception.message;
}

/**
 * The one place where failures become HTTP: every error body is `{ error }` (plus an optional
 * machine `code`), never a stack trace; unexpected errors are logged with the request id.
 */
@Catch()
export class ErrorFilter implements ExceptionFilter {
  constructor(private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<Request & { id?: string }>();
    const res = http.getResponse<Response>();
    const { status, body } = this.describe(exception, req);
    if (status >= 500) {
      this.logger.error({ err: exception, reqId: req.id, url: req.originalUrl }, 'request failed');
    }
    if (res.headersSent) {
      res.end();
      return;
    }
    res.status(status).json(body);
  }

  private describe(exception: unknown, req: Request): { status: number; body: ErrorBody } {
    if (isDatabaseConnectionError(exception)) return this.describe(new DatabaseUnavailableError(exception), req);
    if (isRedisConnectionError(exception)) return this.describe(new RedisUnavailableError(exception), req);
    if (exception instanceof AppError) {
      return { status: exception.status, body: { error: exception.message, code: exception.code } };
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      if (status === 404 && /^Cannot \w+ /.test(exception.message)) {
        return { status, body: { error: noRouteMessage(req.method, req.originalUrl.split('?')[0]) } };
      }
      return { status, body: { error: httpExceptionMessage(exception) } };
    }
    return { status: 500, body: { error: 'Internal server error; retry after a short delay' } };
  }
}
