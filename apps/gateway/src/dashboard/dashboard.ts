import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { NestExpressApplication } from '@nestjs/platform-express';

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

/** `app.useStaticAssets(DASHBOARD_DIR, DASHBOARD_STATIC)`: /dashboard/ serves index.html, every file with the CSP. */
export const DASHBOARD_STATIC: Parameters<NestExpressApplication['useStaticAssets']>[1] = {
  prefix: '/dashboard/',
  index: 'index.html',
  setHeaders: (res: ServerResponse) => {
    res.setHeader('Content-Security-Policy', DASHBOARD_CSP);
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('Cache-Control', 'no-cache');
  },
};
