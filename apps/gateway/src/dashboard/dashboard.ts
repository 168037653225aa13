import { join } from 'node:path';
import type { FastifyStaticOptions } from '@fastify/static';

/** The customer dashboard `npm run build` bundles from apps/dashboard (bin/build-dashboard.js), beside the compiled apps. */
export const DASHBOARD_DIR = join(__dirname, '../../../../dashboard');

/**
 * Stricter than the rest of the gateway (whose docs page needs inline styles): the dashboard handles keys,
 * so only its own script and styles run, it talks only to this origin, and no other site may frame it.
 */
export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** `@fastify/static`'s options for the dashboard: /dashboard/ serves index.html, every file with the CSP. */
export const DASHBOARD_STATIC: FastifyStaticOptions = {
  root: DASHBOARD_DIR,
  prefix: '/dashboard/',
  index: 'index.html',
  setHeaders: (reply) => {
    reply.header('Content-Security-Policy', DASHBOARD_CSP);
    reply.header('Referrer-Policy', 'no-referrer');
    reply.header('Cache-Control', 'no-cache');
  },
};
