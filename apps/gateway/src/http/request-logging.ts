import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { requestContext, type Logger } from '@mailguard/logger';

const CLIENT_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** Query parameters whose values are credentials: a token pasted into a URL must not reach the log. */
const SECRET_PARAMETER = /^(token|key|api[_-]?key|password|secret|[a-z0-9]*[_-]token)$/i;

/** The URL as logged: the values of credential parameters replaced, the rest as the client sent it. */
export function loggedUrl(url: string): string {
  const query = url.indexOf('?');
  if (query < 0) return url;
  const parameters = url
    .slice(query + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const name = equals < 0 ? pair : pair.slice(0, equals);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name);
      } catch {
        // Malformed escapes: judged as written.
      }
      return equals >= 0 && SECRET_PARAMETER.test(decoded) ? `${name}=[redacted]` : pair;
    });
  return `${url.slice(0, query)}?${parameters.join('&')}`;
}

/** A client's own X-Request-Id is kept when it is sane, so its logs and ours line up. */
export function requestIdFor(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && CLIENT_ID.test(incoming) ? incoming : randomUUID();
}

/**
 * First middleware of the app: gives every request an id, echoes it as X-Request-Id on every
 * response (errors and 404s included) and writes one JSON log line per request — at `info` for
 * 2xx/3xx, `warn` for 4xx and aborted requests, `error` for 5xx; never a header (API keys), a
 * body or a credential in the query string. Nothing is built for a line the level filters out: this runs on every request of the hot
 * path. (pino-http, tried in its place, builds a child logger per request whatever the level: the
 * cached-check benchmark lost 8–10% of its throughput to it, so the line is written here.)
 */
export function requestLogging(logger: Logger) {
  return (req: IncomingMessage & { id?: string }, res: ServerResponse, next: () => void): void => {
    const id = requestIdFor(req);
    req.id = id;
    res.setHeader('X-Request-Id', id);
    const started = performance.now();
    // Routers rewrite req.url while they work; the log names what the client asked for.
    const { method } = req;
    const url = loggedUrl(req.url ?? '');
    res.once('close', () => {
      const level = res.statusCode >= 500 ? 'error' : res.statusCode >= 400 || !res.writableFinished ? 'warn' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      logger[level](
        {
          req: { id, method, url },
          res: { statusCode: res.statusCode },
          responseTime: Math.round(performance.now() - started),
        },
        res.writableFinished ? 'request completed' : 'request aborted',
      );
    });
    requestContext.run({ requestId: id }, next);
  };
}
