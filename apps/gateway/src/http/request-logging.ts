import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { requestContext, SECRET_PARAMETER, type LogPrivacy, type Logger } from '@mailguard/logger';

const CLIENT_ID = /^[A-Za-z0-9._:-]{1,128}$/;

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    // Malformed escapes: judged as written.
    return text;
  }
}

const AT = /@|%40/i;

/** A path segment or query value as logged: an address in it (written or percent-encoded) masked. */
function privatePart(text: string, privacy: LogPrivacy): string {
  if (!AT.test(text)) return text;
  const value = decoded(text);
  return value.includes('@') ? privacy.address(value) : text;
}

/**
 * The URL as logged: an address in a path segment or query value (`GET /v1/email-validation/:email`)
 * masked to `h:<hash>@<domain>`, the values of credential parameters replaced, the rest as the client sent it.
 */
export function loggedUrl(url: string, privacy: LogPrivacy): string {
  const query = url.indexOf('?');
  // Most URLs hold neither: nothing to do.
  if (query < 0 && !AT.test(url)) return url;
  const path = (query < 0 ? url : url.slice(0, query))
    .split('/')
    .map((segment) => privatePart(segment, privacy))
    .join('/');
  if (query < 0) return path;
  const parameters = url
    .slice(query + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      if (equals < 0) return privatePart(pair, privacy);
      const name = pair.slice(0, equals);
      if (SECRET_PARAMETER.test(decoded(name))) return `${name}=[redacted]`;
      return `${name}=${privatePart(pair.slice(equals + 1), privacy)}`;
    });
  return `${path}?${parameters.join('&')}`;
}

/** A client's own X-Request-Id is kept when it is sane, so its logs and ours line up. */
export function requestIdFor(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && CLIENT_ID.test(incoming) ? incoming : randomUUID();
}

/**
 * The first request hook: echoes the request's id (Fastify's, from `requestIdFor`) as X-Request-Id
 * on every response (errors, 404s and answers written to the Node response included: the header is
 * set there) and writes one JSON log line per request — at `info` for
 * 2xx/3xx, `warn` for 4xx and aborted requests, `error` for 5xx; never a header (API keys), a
 * body, an address or a credential in the query string. Nothing is built for a line the level filters out: this runs on every request of the hot
 * path. (pino-http, tried in its place, builds a child logger per request whatever the level: the
 * cached-check benchmark lost 8–10% of its throughput to it, so the line is written here.)
 */
export function requestLogging(logger: Logger, privacy: LogPrivacy) {
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const { id, method } = request;
    const res = reply.raw;
    res.setHeader('X-Request-Id', id);
    const started = performance.now();
    const asked = request.url;
    res.once('close', () => {
      const level = res.statusCode >= 500 ? 'error' : res.statusCode >= 400 || !res.writableFinished ? 'warn' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      logger[level](
        {
          req: { id, method, url: loggedUrl(asked, privacy) },
          res: { statusCode: res.statusCode },
          responseTime: Math.round(performance.now() - started),
        },
        res.writableFinished ? 'request completed' : 'request aborted',
      );
    });
    done();
  };
}

/**
 * The request's id as the context of all its route runs (guards, pipes, handler, filters: audit
 * entries, logs of unhandled errors). A pre-handler hook: the body, read from socket events, is in.
 */
export function requestScope(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  requestContext.run({ requestId: request.id }, done);
}
