import type { FastifyRequest } from 'fastify';

/** A request header as one string (a repeated one as Node joined it), or undefined. */
export function headerOf(req: FastifyRequest, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}
