import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pinoHttp } from 'pino-http';
import { requestContext, type Logger } from '@mailguard/logger';

const CLIENT_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A client's own X-Request-Id is kept when it is sane, so its logs and ours line up. */
export function requestIdFor(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && CLIENT_ID.test(incoming) ? incoming : randomUUID();
}

/** A response that was not written to its end: the client went away, or the server gave up. */
const aborted = (res: ServerResponse) => !res.writableFinished;

/**
 * First middleware of the app (pino-http): gives every request an id, echoes it as X-Request-Id on
 * every response (errors and 404s included) and writes one JSON log line per request — at `info`
 * for 2xx/3xx, `warn` for 4xx and aborted requests, `error` for 5xx. The line names the method,
 * the URL as the client sent it and the status: never a header (API keys) or a body. What runs
 * next runs in the request's context, so a failure nobody awaited still names its request.
 */
export function requestLogging(logger: Logger) {
  const log = pinoHttp({
    logger,
    genReqId: (req, res) => {
      const id = requestIdFor(req);
      res.setHeader('X-Request-Id', id);
      return id;
    },
    // Serialized once, when the request arrives: routers rewrite req.url while they work.
    wrapSerializers: false,
    serializers: {
      req: (req: IncomingMessage) => ({ id: req.id, method: req.method, url: req.url }),
      res: (res: ServerResponse) => ({ statusCode: res.statusCode }),
    },
    customLogLevel: (_req, res, error) => {
      if (error || res.statusCode >= 500) return 'error';
      return res.statusCode >= 400 || aborted(res) ? 'warn' : 'info';
    },
    customSuccessMessage: (_req, res) => (aborted(res) ? 'request aborted' : 'request completed'),
    customErrorMessage: (_req, res) => (aborted(res) ? 'request aborted' : 'request completed'),
    // pino-http makes up an error for a 5xx; the error filter has already logged the real one.
    customErrorObject: (_req, res, error, line: Record<string, unknown>) => {
      const { err: _madeUp, ...rest } = line;
      return error.message === `failed with status code ${res.statusCode}` ? rest : line;
    },
  });
  return (req: IncomingMessage, res: ServerResponse, next: () => void): void => {
    log(req, res);
    requestContext.run({ requestId: String(req.id) }, next);
  };
}
