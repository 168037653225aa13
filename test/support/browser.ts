import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium (`.ci/run` installs it): no browser is ever downloaded. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Headless, and quiet on a machine without internet (no background calls to Google's hosts). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface PageServer {
  origin: string;
  stop(): Promise<void>;
}

/**
 * A customer's site on its own origin: `GET /form` is a page with two forms and the widget loaded
 * from `scriptUrl` at the end of the body (or in <head> with `?head=<init options>`); `?js=1` makes the page handle submissions itself (counted in `window.submits`)
 * instead of navigating; `/submitted` is where native submissions land.
 */
export async function startPageServer(scriptUrl: string): Promise<PageServer> {
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://page');
    if (url.pathname === '/submitted') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><title>Submitted</title><h1>Submitted</h1>');
      return;
    }
    if (url.pathname !== '/form') {
      res.writeHead(404).end();
      return;
    }
    const handleInPage = url.searchParams.get('js') === '1';
    // ?head=<options JSON>: the site loads the script and calls Guard.init in <head>, before the form exists.
    const headInit = url.searchParams.get('head');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html>
<html><head><meta charset="utf-8"><title>Shop sign-up</title>
${headInit === null ? '' : `<script src="${scriptUrl}"></script><script>window.events = []; Guard.init(${headInit});</script>`}
<style>
  body { font: 16px sans-serif; padding: 24px; }
  form { position: relative; margin-bottom: 48px; }
  input[type=email] { font: inherit; padding: 8px 10px; border: 1px solid #888; border-radius: 10px; width: 320px; box-sizing: border-box; }
</style></head>
<body>
  <form id="signup" action="/submitted" method="get">
    <input id="email" name="email" type="email">
    <input name="plan" type="hidden" value="pro">
    <button id="send" type="submit">Sign up</button>
  </form>
  <form id="newsletter" action="/submitted" method="get">
    <input id="email2" name="email" type="email">
    <button id="send2" type="submit">Subscribe</button>
  </form>
  <div id="later"></div>
  ${headInit === null ? `<script src="${scriptUrl}"></script>` : ''}
  <script>
    window.events = window.events || [];
    window.submits = 0;
    ${handleInPage ? "document.querySelectorAll('form').forEach(function (form) { form.addEventListener('submit', function (event) { event.preventDefault(); window.submits++; }); });" : ''}
  </script>
</body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
