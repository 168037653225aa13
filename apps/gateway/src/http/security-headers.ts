import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet from 'helmet';

/**
 * Helmet's headers (CSP, HSTS, nosniff, …), worked out once at start-up and then set on every
 * response in one pass: they do not depend on the request, and a dozen middlewares per request
 * cost more than the headers themselves on the cached-check path.
 */
export function securityHeaders(
  options: Parameters<typeof helmet>[0],
): (req: IncomingMessage, res: ServerResponse, next: () => void) => void {
  const headers: Array<[string, string]> = [];
  const recorder = {
    setHeader: (name: string, value: string) => headers.push([name, String(value)]),
    removeHeader: () => undefined,
  };
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, () => undefined);
  return (_req, res, next) => {
    for (const [name, value] of headers) res.setHeader(name, value);
    next();
  };
}
