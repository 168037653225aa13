import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyReply } from 'fastify';

/** One cookie of a request, or null: the Cookie header read by hand (no parser middleware for two cookies). */
export function readCookie(req: { headers: IncomingHttpHeaders }, name: string): string | null {
  const header = req.headers.cookie;
  if (!header) return null;
  for (const part of header.split(';')) {
    const equals = part.indexOf('=');
    if (equals < 0 || part.slice(0, equals).trim() !== name) continue;
    const value = part
      .slice(equals + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1');
    return value === '' ? null : value;
  }
  return null;
}

export interface CookieOptions {
  httpOnly: boolean;
  secure: boolean;
  /** Seconds; 0 removes the cookie. */
  maxAge: number;
}

/** A `Set-Cookie` value: Path=/ and SameSite=Lax always; values are base64url, written as they are. */
export function cookieHeader(name: string, value: string, options: CookieOptions): string {
  if (!/^[A-Za-z0-9_-]*$/.test(value)) throw new Error('cookie values are base64url');
  const parts = [`${name}=${value}`, 'Path=/', `Max-Age=${options.maxAge}`, 'SameSite=Lax'];
  if (options.maxAge === 0) parts.push('Expires=Thu, 01 Jan 1970 00:00:00 GMT');
  if (options.httpOnly) parts.push('HttpOnly');
  if (options.secure) parts.push('Secure');
  return parts.join('; ');
}

/** Adds Set-Cookie headers to those already set (Fastify appends each one). */
export function setCookies(res: FastifyReply, cookies: string[]): void {
  for (const cookie of cookies) res.header('Set-Cookie', cookie);
}
