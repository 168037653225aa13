import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import helmet from 'helmet';

/**
 * Helmet's headers (CSP, HSTS, nosniff, …), worked out once at start-up and then set by a request
 * hook on every response in one pass: they do not depend on the request, and running helmet's dozen
 * steps per request (@fastify/helmet) costs more than the headers themselves on the cached-check
 * path. Set on the Node response, so that answers written there (MCP) carry them too.
 */
export function securityHeaders(
  options: Parameters<typeof helmet>[0],
): (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void {
  const headers: Array<[string, string]> = [];
  const recorder = {
    setHeader: (name: string, value: string) => headers.push([name, String(value)]),
    removeHeader: () => undefined,
  };
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, () => undefined);
  return (_request, reply, done) => {
    for (const [name, value] of headers) reply.raw.setHeader(name, value);
    done();
  };
}
