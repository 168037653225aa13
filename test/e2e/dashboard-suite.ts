import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import axe from 'axe-core';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startLab, type Lab } from '../lab';
import { loadScenario } from '../lab/scenario';
import { apiClient, type ApiCall } from '../support/api-client';
import { launchChromium } from '../support/browser';
import { startGatewayProcess, startWorkerProcess, WORKER_KINDS, type RunningProcess } from '../support/processes';
import { createTestDatabase, flushRedisPrefix, TEST_REDIS_URL, type TestDatabase } from '../support/services';
import type { Driver } from './api-suite';

const SCREENSHOTS = resolve(__dirname, '../../artifacts/dashboard');

interface Signup {
  account: { id: string };
  apiKey: string;
}

/**
 * The customer dashboard (docs/dashboard.md) in headless Chromium, served by the built gateway and driving the
 * real API: the walk a new customer takes, the refusals in words, axe-core on every page, screenshots.
 */
export function dashboardSuite(driver: Driver): void {
  jest.setTimeout(240_000);
  const distributed = driver === 'bullmq';
  const prefix = `mgtest:${randomBytes(6).toString('hex')}:`;
  let lab: Lab;
  let database: TestDatabase;
  let gateway: RunningProcess;
  let workers: RunningProcess[] = [];
  let browser: Browser;
  let api: ApiCall;
  let contexts: BrowserContext[] = [];
  /** Every Content-Security-Policy violation Chromium reported: the pages must cause none. */
  let violations: string[] = [];
  /** Every request for a file of the page (not an API call) that failed: the icon among them, on every load. */
  let missing: string[] = [];

  beforeAll(async () => {
    lab = await startLab(loadScenario());
    database = await createTestDatabase();
    const env = {
      ...lab.env,
      DATABASE_URL: database.url,
      ...(distributed ? { REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: prefix } : {}),
      SMTP_TIMEOUT_MS: '3000',
      SIGNUP_LIMIT_PER_IP_HOUR: '1000',
      ...lab.relay.env,
      PUBLIC_URL: 'http://dashboard.test',
    };
    const workDir = () => mkdtempSync(join(tmpdir(), 'mailguard-dashboard-'));
    gateway = await startGatewayProcess(env, workDir());
    if (distributed) workers = await Promise.all(WORKER_KINDS.map((kind) => startWorkerProcess(kind, env, workDir())));
    api = apiClient(gateway.url);
    browser = await launchChromium();
    mkdirSync(SCREENSHOTS, { recursive: true });
  });

  afterEach(async () => {
    await Promise.all(contexts.map((context) => context.close()));
    contexts = [];
    expect(violations).toEqual([]);
    violations = [];
    expect(missing).toEqual([]);
    missing = [];
  });

  afterAll(async () => {
    await browser?.close();
    await Promise.all(workers.map((worker) => worker.stop()));
    await gateway?.stop();
    await database?.drop();
    await lab?.stop();
    if (distributed) await flushRedisPrefix(prefix);
  });

  async function open(hash = '', colorScheme: 'light' | 'dark' = 'light'): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US', colorScheme });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: gateway.url });
    contexts.push(context);
    const page = await context.newPage();
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    page.on('response', (response) => {
      const path = new URL(response.url()).pathname;
      if (response.status() >= 400 && !/^\/(v1|auth)\//.test(path)) missing.push(`${response.status()} ${path}`);
    });
    await page.goto(`${gateway.url}/dashboard/${hash}`);
    return page;
  }

  async function signIn(page: Page, key: string): Promise<void> {
    await page.goto(`${gateway.url}/dashboard/#/signin-key`);
    await page.fill('#signin-key', key);
    await page.click('button[type=submit]');
    await page.waitForSelector('h1:text("Overview")');
  }

  async function go(page: Page, path: string, title: string): Promise<void> {
    await page.click(`nav a[href="#/${path}"]`);
    await page.waitForSelector(`h1:text("${title}")`);
  }

  /** axe-core in the page (evaluated by the driver, so the page's CSP does not apply); then both screenshots. */
  async function axeViolations(page: Page): Promise<Array<{ id: string; impact: string; nodes: string[] }>> {
    if (!(await page.evaluate('typeof axe !== "undefined"'))) await page.evaluate(axe.source);
    return (await page.evaluate(
      'axe.run(document, { resultTypes: ["violations"] }).then(r => r.violations.map(v => ({ id: v.id, impact: v.impact, nodes: v.nodes.map(n => n.target.join(" ")) })))',
    )) as Array<{ id: string; impact: string; nodes: string[] }>;
  }

  /** axe in the light and the dark colour scheme (0 violations of any impact), both screenshots, no sideways scroll at 375 px. */
  async function inspect(page: Page, name: string): Promise<void> {
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      expect({ page: name, colorScheme, violations: await axeViolations(page) }).toEqual({
        page: name,
        colorScheme,
        violations: [],
      });
      await page.screenshot({
        path: join(SCREENSHOTS, `${name}-1280${colorScheme === 'dark' ? '-dark' : ''}.png`),
        fullPage: true,
      });
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 375, height: 800 });
    expect({
      page: name,
      scrollWidth: await page.evaluate('document.scrollingElement.scrollWidth <= innerWidth'),
    }).toEqual({ page: name, scrollWidth: true });
    // Nothing wider than the phone (inside scrolling or clipping boxes aside): the elements sticking out are named.
    const overflowing = await page.evaluate(`Array.from(document.querySelectorAll('body *'))
      .filter((element) => element.getBoundingClientRect().right > 376 && !element.closest('.scroll, .chart'))
      .map((element) => element.tagName.toLowerCase() + (element.id ? '#' + element.id : '') + '.' + element.className)`);
    expect({ page: name, overflowing }).toEqual({ page: name, overflowing: [] });
    await page.screenshot({ path: join(SCREENSHOTS, `${name}-375.png`), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  async function newAccount(): Promise<Signup> {
    const response = await api<Signup>('POST', '/v1/accounts', {
      body: { email: `someone.${randomBytes(3).toString('hex')}@catchall.test` },
    });
    expect(response.status).toBe(201);
    return response.body;
  }

  it('is served with a strict Content-Security-Policy and no inline script', async () => {
    const response = await fetch(`${gateway.url}/dashboard/`);
    expect(response.status).toBe(200);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    const html = await response.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/https?:\/\//);
  });

  it('walks sign-up → key → verify → a 500-row list → CSV → revoke → transactions', async () => {
    const page = await open('#/signup');
    await page.fill('#signup-email', `founder.${randomBytes(3).toString('hex')}@catchall.test`);
    await page.fill('#signup-name', 'Founder');
    await page.fill('#signup-password', 'correct horse battery');
    await page.click('button[type=submit]');
    await page.waitForSelector('#new-key');
    expect(await page.textContent('.warning')).toContain('will not be shown again');
    await page.getByRole('button', { name: 'Copy Secret API key' }).click();
    const key = (await page.evaluate('navigator.clipboard.readText()')) as string;
    expect(key).toMatch(/^mg_live_[A-Za-z0-9]{32}$/);
    expect(await page.inputValue('#new-key')).toBe(key);
    expect(await page.inputValue('#new-webhook-secret')).not.toBe('');
    await inspect(page, 'signup');

    await page.click('text=I have copied them: sign in');
    await page.waitForSelector('#signin-email');
    await inspect(page, 'signin');
    await page.click('text=Sign in with an API key');
    await page.waitForSelector('#signin-key');
    await inspect(page, 'signin-key');
    await signIn(page, key);
    expect(await page.evaluate('sessionStorage.getItem("mailguard.session")')).toContain(key);
    expect(await page.evaluate('JSON.stringify(localStorage)')).not.toContain(key);
    await page.waitForSelector('#balance:text("2,500 credits")');

    await go(page, 'keys', 'API keys');
    await page.fill('#key-name', 'verifier');
    await page.selectOption('#key-scope', 'verify');
    await page.click('text=Create key');
    await page.waitForSelector('#created-key');
    const verifyKey = await page.inputValue('#created-key');
    expect(verifyKey).toMatch(/^mg_live_/);
    await page.waitForSelector(`tr[data-key="${verifyKey.slice(0, 12)}"]`);
    expect(await page.textContent(`tr[data-key="${verifyKey.slice(0, 12)}"]`)).toContain('verify');
    await inspect(page, 'keys');

    await go(page, 'verify', 'Verify addresses');
    await page.fill('#verify-email', 'john.doe@acme.test');
    await page.click('form.inline button[type=submit]');
    await page.waitForSelector('.result.valid');
    expect(await page.textContent('.result .verdict')).toContain('Valid: safe to send');
    await page.click('.result summary');
    expect(await page.locator('.result .checks li').count()).toBe(9);
    expect(await page.textContent('.result .checks')).toContain('The mail server answered 250');
    await inspect(page, 'verify');

    await go(page, 'lists', 'Lists');
    const rows = Array.from(
      { length: 500 },
      (_, index) =>
        `${index},Person ${index},${index % 5 === 0 ? 'john.doe@acme.test' : `user${index}@${index % 2 ? 'acme.test' : 'catchall.test'}`}`,
    );
    await page.setInputFiles('#list-file', {
      name: 'leads.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(['id,name,contact', ...rows].join('\n')),
    });
    await page.waitForSelector('#list-column');
    await page.selectOption('#list-column', 'contact');
    await page.click('text=Upload and verify');
    await page.waitForSelector('#list-progress');
    await page.waitForSelector('#list-status:text("completed")', { timeout: 180_000 });
    expect(await page.textContent('#list-progress-text')).toContain('100% · 500 of 500 processed');
    const counts = await Promise.all(
      ['valid', 'risky', 'invalid'].map(async (status) => Number(await page.textContent(`#count-${status}`))),
    );
    expect(counts.reduce((sum, count) => sum + count, 0)).toBe(500);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('text=Download CSV')]);
    const csv = readFileSync(await download.path(), 'utf8')
      .trim()
      .split(/\r?\n/);
    expect(csv).toHaveLength(501);
    expect(csv[0]).toMatch(/^id,name,contact,status,reason/);
    await page.waitForSelector('#lists td:text("leads.csv")');
    await inspect(page, 'lists');

    await go(page, 'finder', 'Find an address');
    await page.fill('#finder-first', 'John');
    await page.fill('#finder-last', 'Doe');
    await page.fill('#finder-domain', 'acme.test');
    await page.getByRole('button', { name: 'Find', exact: true }).click();
    await page.waitForSelector('#finder-results h2:text("About acme.test")');
    await inspect(page, 'finder');

    await go(page, 'widget', 'Form widget');
    await page.waitForSelector('#embed-snippet');
    expect(await page.inputValue('#embed-snippet')).toContain(`${gateway.url}/v1/widget/widget.js`);
    await page.fill('#preview-email', 'nobody@acme.test');
    await page.waitForSelector('#preview-email[data-guard-status="invalid"]');
    await inspect(page, 'widget');

    await go(page, 'keys', 'API keys');
    await page.click('button[aria-label="Revoke verifier"]');
    await page.click('text=Yes, revoke');
    await page.waitForSelector(`tr[data-key="${verifyKey.slice(0, 12)}"] td:text-is("active")`, { state: 'detached' });
    expect((await api('GET', '/v1/credits', { key: verifyKey })).status).toBe(401);

    await go(page, 'overview', 'Overview');
    await page.waitForSelector('#transactions tbody tr');
    const ledger = await page.textContent('#transactions');
    expect(await page.locator('#transactions tbody tr').count()).toBeGreaterThanOrEqual(3);
    expect(ledger).toContain('single check');
    expect(ledger).toContain('list leads.csv');
    await inspect(page, 'overview');

    await page.click('text=Sign out');
    await page.waitForSelector('#signin-email');
    expect(await page.evaluate('sessionStorage.getItem("mailguard.session")')).toBeNull();
  });

  it('takes a list dropped on the upload area, and downloads its results as JSON (every row, paged)', async () => {
    const owner = await newAccount();
    const page = await open();
    await signIn(page, owner.apiKey);
    await go(page, 'lists', 'Lists');
    // 150 rows: more than one page (100) of results, so the download has to follow the pages.
    const emails = Array.from({ length: 150 }, (_, index) => `drop${index}@${index % 2 ? 'acme.test' : 'nullmx.test'}`);
    const text = ['who,mail', ...emails.map((email, index) => `p${index},${email}`)].join('\n');
    // Built in the page (a string, as the axe call is: the test's own types have no DOM).
    const dropped = await page.evaluateHandle(
      `(() => { const transfer = new DataTransfer(); transfer.items.add(new File([${JSON.stringify(text)}], 'dropped.csv', { type: 'text/csv' })); return transfer; })()`,
    );
    await page.dispatchEvent('.drop', 'dragover', { dataTransfer: dropped });
    await page.dispatchEvent('.drop', 'drop', { dataTransfer: dropped });
    await page.waitForSelector('text=Selected: dropped.csv');
    expect(await page.inputValue('#list-column')).toBe('mail');
    await page.click('text=Upload and verify');
    await page.waitForSelector('#list-status:text("completed")', { timeout: 180_000 });
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('text=Download JSON')]);
    expect(download.suggestedFilename()).toBe('dropped-results.json');
    const rows = JSON.parse(readFileSync(await download.path(), 'utf8')) as Array<{
      row: number;
      email: string;
      result: { status: string };
    }>;
    expect(rows.map((row) => row.email).sort()).toEqual([...emails].sort());
    expect(
      rows.filter((row) => row.email.endsWith('@nullmx.test')).every((row) => row.result.status === 'invalid'),
    ).toBe(true);
  });

  it('says in words why it was refused: 402 out of credits, 403 scope, 429 counting down', async () => {
    const owner = await newAccount();
    await database.setBalance(owner.account.id, 0);
    const verifyKey = await api<{ key: string }>('POST', '/v1/keys', {
      key: owner.apiKey,
      body: { name: 'checks', scope: 'verify' },
    });
    const page = await open();
    await signIn(page, owner.apiKey);
    await go(page, 'verify', 'Verify addresses');
    await page.fill('#verify-email', 'john.doe@acme.test');
    await page.click('form.inline button[type=submit]');
    await page.waitForSelector('.problem[data-kind="credits"]');
    expect(await page.textContent('.problem')).toContain('Out of credits');

    const scoped = await open();
    await signIn(scoped, verifyKey.body.key);
    await go(scoped, 'lists', 'Lists');
    await scoped.waitForSelector('.problem[data-kind="scope"]');
    expect(await scoped.textContent('.problem')).toContain(
      "This key's scope, verify (checks and the finder), does not allow this.",
    );
    expect(await scoped.textContent('.note')).toContain('Read-only');
    await go(scoped, 'keys', 'API keys');
    expect(await scoped.textContent('.note')).toContain('needs a full or read-only key');

    let status = 200;
    for (let sent = 0; status !== 429 && sent < 70; sent++)
      status = (await api('GET', '/v1/credits', { key: owner.apiKey })).status;
    expect(status).toBe(429);
    await page.click('form.inline button[type=submit]');
    await page.waitForSelector('.problem[data-kind="rate"]');
    const first = Number(/try again in (\d+) seconds/.exec((await page.textContent('.problem')) ?? '')?.[1]);
    expect(first).toBeGreaterThan(0);
    // It counts down: the number shown goes below the first one.
    await page.waitForSelector(`.problem[data-kind="rate"]:not(:has-text("again in ${first} seconds"))`);
    const later = Number(/try again in (\d+) seconds/.exec((await page.textContent('.problem')) ?? '')?.[1] ?? '0');
    expect(later).toBeLessThan(first);
  });

  it('says when the service cannot be reached, and Retry loads the page once it answers', async () => {
    const owner = await newAccount();
    const page = await open();
    await signIn(page, owner.apiKey);
    // The browser's own network failure for the keys call: no answer at all, not a refusal.
    await page.route('**/v1/keys*', (route) => route.abort('internetdisconnected'));
    await go(page, 'keys', 'API keys');
    await page.waitForSelector('.problem[data-kind="network"]');
    expect(await page.textContent('.problem')).toContain('The service could not be reached');
    expect(await page.$('table#keys')).toBeNull();
    await page.unroute('**/v1/keys*');
    await page.click('.problem button:text("Retry")');
    await page.waitForSelector('table#keys');
    expect(await page.$('.problem')).toBeNull();
  });

  /** A list upload from the page, with the CSV given as text. */
  async function chooseCsv(page: Page, name: string, text: string): Promise<void> {
    await page.setInputFiles('#list-file', { name, mimeType: 'text/csv', buffer: Buffer.from(text) });
    await page.waitForSelector(`text=Selected: ${name}`);
  }

  it('says a refused first sign-in was not accepted, and never speaks of signing out', async () => {
    const page = await open('#/signin-key');
    await page.fill('#signin-key', `mg_live_${'x'.repeat(32)}`);
    await page.click('button[type=submit]');
    await page.waitForSelector('#signin-refused');
    const text = (await page.textContent('#signin-refused')) ?? '';
    expect(text).toContain('This key was not accepted');
    expect(await page.textContent('main')).not.toMatch(/not valid any more|sign out and sign in/i);
    expect(await page.locator('[role=alert]').count()).toBe(1);
    await inspect(page, 'signin-refused');
  });

  it('marks the key in use, and revoking it signs out with one clear message', async () => {
    const owner = await newAccount();
    const other = await api<{ key: string }>('POST', '/v1/keys', {
      key: owner.apiKey,
      body: { name: 'second', scope: 'full' },
    });
    const page = await open();
    await signIn(page, owner.apiKey);
    await go(page, 'keys', 'API keys');
    const mine = `tr[data-key="${owner.apiKey.slice(0, 12)}"]`;
    await page.waitForSelector(`${mine} #key-in-use`);
    expect(await page.locator('#key-in-use').count()).toBe(1);
    expect(await page.textContent(`tr[data-key="${other.body.key.slice(0, 12)}"]`)).not.toContain('in use');
    // At 375 px the row's actions are on screen, not off to the right.
    await page.setViewportSize({ width: 375, height: 800 });
    const box = await page.locator(`${mine} button:text("Revoke")`).boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= 375).toBe(true);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.click(`${mine} button:text("Revoke")`);
    expect(await page.textContent(mine)).toContain('you will be signed out');
    await page.click(`${mine} button:text("Yes, revoke")`);
    await page.waitForSelector('#signed-out');
    expect(await page.locator('#signed-out').count()).toBe(1);
    expect(await page.textContent('#signed-out')).toContain('You revoked the key you were signed in with');
    expect(await page.locator('.problem').count()).toBe(0);
    expect(await page.evaluate('sessionStorage.getItem("mailguard.session")')).toBeNull();
    await inspect(page, 'signed-out');
  });

  it('ends a session revoked elsewhere with one message, however many calls were refused', async () => {
    const owner = await newAccount();
    const second = await api<{ id: string; key: string }>('POST', '/v1/keys', {
      key: owner.apiKey,
      body: { name: 'laptop', scope: 'full' },
    });
    const page = await open();
    await signIn(page, second.body.key);
    expect((await api('DELETE', `/v1/keys/${second.body.id}`, { key: owner.apiKey })).status).toBe(204);
    // The overview makes three calls at once; each is refused.
    await page.reload();
    await page.waitForSelector('#signed-out');
    expect(await page.locator('#signed-out').count()).toBe(1);
    expect(await page.locator('.problem').count()).toBe(0);
  });

  it('frames no page on load or navigation, and keeps keyboard focus visible on controls', async () => {
    const owner = await newAccount();
    const page = await open();
    const framed = `(() => { const e = document.activeElement; if (!e || e === document.body) return null;
      const s = getComputedStyle(e); return s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0 && !e.matches('a, button, input, select, textarea, summary') ? e.tagName : null; })()`;
    await page.waitForSelector('#signin-email');
    expect(await page.evaluate(framed)).toBeNull();
    await signIn(page, owner.apiKey);
    expect(await page.evaluate(framed)).toBeNull();
    await go(page, 'keys', 'API keys');
    expect(await page.evaluate(framed)).toBeNull();
    expect(await page.evaluate('document.activeElement.tagName')).toBe('H1');
    await page.keyboard.press('Tab');
    const outline = (await page.evaluate(
      '(() => { const s = getComputedStyle(document.activeElement); return s.outlineStyle + " " + s.outlineWidth; })()',
    )) as string;
    expect(outline).toMatch(/^solid 3px$/);
  });

  it('asks for the address column when none looks like one, shows the cost, then held and charged on the list', async () => {
    const owner = await newAccount();
    const page = await open();
    await signIn(page, owner.apiKey);
    await go(page, 'lists', 'Lists');
    // No header named like an email column: the one whose values are addresses is picked, not the first.
    await chooseCsv(page, 'people.csv', ['id,who', '1,ann@acme.test', '2,bob@acme.test'].join('\n'));
    expect(await page.inputValue('#list-column')).toBe('who');
    // Nothing looks like an address: the page asks, and will not upload before the user chooses.
    const rows = [
      'code,contact,notes',
      '1,john.doe@acme.test,first',
      '2,not an address,second',
      '3,JOHN.DOE@acme.test,duplicate',
      '4,jane@acme.test,third',
      '5,nope,fourth',
      '6,also nope,fifth',
      '7,none,sixth',
    ];
    await chooseCsv(page, 'odd.csv', rows.join('\n'));
    await page.waitForSelector('#list-column-ask');
    expect(await page.inputValue('#list-column')).toBe('');
    expect(await page.isDisabled('text=Upload and verify')).toBe(true);
    await inspect(page, 'lists-choose-column');
    await page.selectOption('#list-column', 'contact');
    // Two unique addresses pass the syntax check: at most 2 credits.
    expect(await page.textContent('#list-cost')).toContain('Estimated cost: at most 2 credits for 7 rows');
    await page.click('text=Upload and verify');
    await page.waitForSelector('#list-status:text("completed")', { timeout: 180_000 });
    // The service read the chosen column (emailColumn): john.doe and its repeat are valid, and both syntax
    // failures of that column are invalid (the first column, the codes, would have given no valid row at all).
    expect(Number(await page.textContent('#count-valid'))).toBeGreaterThanOrEqual(2);
    expect(await page.textContent('#list-credits')).toMatch(/Credits: 0 held, [0-2] charged/);
    await page.waitForSelector('#lists td.list-credits');
    expect(await page.textContent('#lists tbody tr:first-child td.list-credits')).toMatch(/^0 \/ [0-2]$/);
    // The verdicts of the finished list, as a chart: bars per status and the top reasons.
    await page.waitForSelector('#list-reasons li');
    expect(await page.locator('#list-breakdown li[data-status]').count()).toBe(3);
    expect(await page.textContent('#list-reasons')).toContain('invalid_syntax');
    await inspect(page, 'lists-finished');
  });

  it('cancels a running list only after confirming, then downloads its partial results', async () => {
    const owner = await newAccount();
    const page = await open();
    await signIn(page, owner.apiKey);
    await go(page, 'lists', 'Lists');
    // greylist.test's server greylists the first attempt: those rows wait for their retry, so the list keeps running.
    const emails = ['john.doe@acme.test', 'alice@greylist.test', 'bob@greylist.test'];
    await chooseCsv(page, 'slow.csv', ['email', ...emails].join('\n'));
    await page.click('text=Upload and verify');
    await page.waitForSelector('#list-status:text("processing")');
    await page.waitForSelector('#list-greylist', { timeout: 60_000 });
    expect(await page.textContent('#list-greylist')).toMatch(
      /2 rows waiting for a greylisting retry \(next try at .+\)/,
    );
    expect(await page.textContent('#list-progress-text')).not.toMatch(/left/);
    await page.waitForSelector('#count-valid:text("1")');
    await page.click('text=Cancel list');
    const dialog = page.getByRole('dialog', { name: 'Cancel slow.csv?' });
    await dialog.waitFor();
    await inspect(page, 'lists-cancel-dialog');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect(await page.textContent('#list-status')).toBe('processing');
    await page.click('text=Cancel list');
    await dialog.getByRole('button', { name: 'Yes, cancel the list' }).click();
    await page.waitForSelector('#list-status:text("cancelled")');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.click('text=Download partial results (CSV)'),
    ]);
    const csv = readFileSync(await download.path(), 'utf8')
      .trim()
      .split(/\r?\n/);
    expect(csv[0]).toMatch(/^email,status,reason/);
    expect(csv).toHaveLength(4);
    expect(csv.find((line) => line.startsWith('john.doe@acme.test,'))).toMatch(/^john\.doe@acme\.test,valid,/);
  });

  it('previews the widget for free, past the public tier, and says when a preview check is refused', async () => {
    const owner = await newAccount();
    const page = await open();
    await signIn(page, owner.apiKey);
    const before = (await api<{ balance: number }>('GET', '/v1/credits', { key: owner.apiKey })).body.balance;
    const sent: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/v1/widget/')) sent.push(new URL(request.url()).pathname);
    });
    await go(page, 'widget', 'Form widget');
    await page.waitForSelector('#embed-snippet');
    // Six checks and three changes of settings: past the public tier's four a day, and still answered.
    const addresses = ['nobody@acme.test', 'john.doe@acme.test', 'x@nullmx.test', 'a@acme.test', 'b@acme.test'];
    for (const [index, email] of [...addresses, 'c@acme.test'].entries()) {
      if (index % 2 === 1) await page.click('#widget-free');
      await page.fill('#preview-email', email);
      await Promise.all([
        page.waitForResponse((response) => response.url().endsWith('/v1/widget/preview')),
        page.locator('#preview-email').blur(),
      ]);
      await page.waitForSelector('#preview-email[data-guard-status]:not([data-guard-status="checking"])');
      expect(await page.getAttribute('#preview-email', 'data-guard-status')).not.toBe('unverified');
    }
    expect(sent.filter((path) => path === '/v1/widget/preview').length).toBeGreaterThanOrEqual(6);
    expect(sent).not.toContain('/v1/widget/verify');
    expect((await api<{ balance: number }>('GET', '/v1/credits', { key: owner.apiKey })).body.balance).toBe(before);
    // A refusal is said on the page, not swallowed.
    await page.route('**/v1/widget/preview', (route) =>
      route.fulfill({
        status: 429,
        contentType: 'application/json',
        headers: { 'Retry-After': '30' },
        body: JSON.stringify({ error: 'Too many preview checks', code: 'rate_limited' }),
      }),
    );
    await page.fill('#preview-email', 'late@acme.test');
    await page.locator('#preview-email').blur();
    await page.waitForSelector('#preview-problem .problem');
    expect(await page.textContent('#preview-problem')).toMatch(/try again in \d+ seconds/);
  });

  it('offers a free preview path with the account credential only, not counted against the public tier', async () => {
    const owner = await newAccount();
    expect((await api('POST', '/v1/widget/preview', { body: { email: 'john.doe@acme.test' } })).status).toBe(401);
    const before = (await api<{ balance: number }>('GET', '/v1/credits', { key: owner.apiKey })).body.balance;
    for (let index = 0; index < 6; index++) {
      const answer = await api<{ status: string }>('POST', '/v1/widget/preview', {
        key: owner.apiKey,
        body: { email: 'john.doe@acme.test' },
      });
      expect(answer.status).toBe(200);
      expect(answer.body.status).toBe('valid');
    }
    expect((await api<{ balance: number }>('GET', '/v1/credits', { key: owner.apiKey })).body.balance).toBe(before);
    expect((await api('POST', '/v1/widget/preview', { key: owner.apiKey, body: {} })).status).toBe(400);
    // A fresh device still has its whole public tier: the previews were not counted there.
    const device = `preview${randomBytes(6).toString('hex')}`;
    for (let index = 0; index < 4; index++)
      expect(
        (await api('POST', '/v1/widget/verify', { body: { email: 'john.doe@acme.test', deviceId: device } })).status,
      ).toBe(200);
    // Only a key that may read the widget's settings may preview them.
    const checks = await api<{ key: string }>('POST', '/v1/keys', {
      key: owner.apiKey,
      body: { name: 'checks only', scope: 'verify' },
    });
    expect(
      (await api('POST', '/v1/widget/preview', { key: checks.body.key, body: { email: 'john.doe@acme.test' } })).status,
    ).toBe(403);
  });

  it('shows whole-number ticks and grouped numbers on the overview, in light and dark', async () => {
    const owner = await newAccount();
    expect((await api('GET', '/v1/email-validation/john.doe@acme.test', { key: owner.apiKey })).status).toBe(200);
    const page = await open('', 'dark');
    await signIn(page, owner.apiKey);
    await page.waitForSelector('.chart[data-ticks]');
    const ticks = String(await page.getAttribute('.chart', 'data-ticks'))
      .split(' ')
      .map(Number);
    expect(ticks.length).toBeGreaterThan(1);
    expect(ticks.every((tick) => Number.isInteger(tick))).toBe(true);
    await page.waitForSelector('#balance:text("2,499 credits")');
    expect(await page.evaluate('matchMedia("(prefers-color-scheme: dark)").matches')).toBe(true);
    expect(await page.evaluate('getComputedStyle(document.body).backgroundColor')).not.toBe('rgb(255, 255, 255)');
    await inspect(page, 'overview-dark');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-transactions')]);
    const lines = readFileSync(await download.path(), 'utf8')
      .trim()
      .split(/\r?\n/);
    expect(lines[0]).toBe('id,date,kind,delta,balance_after,reason,ref');
    expect(lines.join('\n')).toContain('charge');
  });

  /** The token of the newest one-time link the lab relay took for `to` (after `since` messages). */
  async function linkToken(to: string, since: number): Promise<string> {
    const message = await lab.relay.waitFor(to, since);
    const token = /token=([A-Za-z0-9_-]+)/.exec(message.body)?.[1];
    if (!token) throw new Error(`no link in the message to ${to}: ${message.body}`);
    return token;
  }

  async function signUpWithPassword(page: Page, email: string, password: string): Promise<void> {
    await page.goto(`${gateway.url}/dashboard/#/signup`);
    await page.fill('#signup-email', email);
    await page.fill('#signup-name', 'Owner');
    await page.fill('#signup-password', password);
    await page.click('button[type=submit]');
    await page.waitForSelector('#new-key');
  }

  async function signInWithPassword(page: Page, email: string, password: string): Promise<void> {
    await page.fill('#signin-email', email);
    await page.fill('#signin-password', password);
    await page.click('button[type=submit]');
    await page.waitForSelector('h1:text("Overview")');
  }

  it('walks sign-up with a password → sign-out → sign-in → key → list → usage → a developer member → reset', async () => {
    const owner = `owner.${randomBytes(3).toString('hex')}@catchall.test`;
    const page = await open('#/signup');
    await signUpWithPassword(page, owner, 'first password 1');
    await page.click('text=I have copied them: sign in');
    await page.fill('#signin-email', owner);
    await page.fill('#signin-password', 'wrong password 1');
    await page.click('button[type=submit]');
    await page.waitForSelector('#signin-refused');
    expect(await page.textContent('#signin-refused')).toContain('This email and password were not accepted');
    await signInWithPassword(page, owner, 'first password 1');
    const cookies = await page.context().cookies();
    expect(cookies.find((cookie) => cookie.name === 'mg_session')?.httpOnly).toBe(true);
    const csrf = cookies.find((cookie) => cookie.name === 'mg_csrf')?.value;
    expect(csrf).toBeTruthy();
    expect(await page.evaluate('JSON.stringify(sessionStorage) + JSON.stringify(localStorage)')).not.toContain(
      'mg_live_',
    );
    // Sign out, then back in: the session is the cookie's, and a reload keeps it.
    await page.click('text=Sign out');
    await page.waitForSelector('#signin-email');
    expect((await page.context().cookies()).find((cookie) => cookie.name === 'mg_session')?.value ?? '').toBe('');
    await signInWithPassword(page, owner, 'first password 1');
    await page.reload();
    await page.waitForSelector('h1:text("Overview")');

    // A key, created by the session: CSRF token sent, no key.
    await go(page, 'keys', 'API keys');
    await page.fill('#key-name', 'from the session');
    const [request] = await Promise.all([
      page.waitForRequest((candidate) => candidate.url().endsWith('/v1/keys') && candidate.method() === 'POST'),
      page.click('text=Create key'),
    ]);
    const headers = await request.allHeaders();
    expect(headers['x-csrf-token']).toBe((await page.context().cookies()).find((c) => c.name === 'mg_csrf')?.value);
    expect(headers['x-api-key']).toBeUndefined();
    await page.waitForSelector('#created-key');

    // A list, then its credits in the usage of the day.
    await go(page, 'lists', 'Lists');
    const rows = Array.from({ length: 20 }, (_, index) => `user${index}@${index % 2 ? 'acme.test' : 'catchall.test'}`);
    await page.setInputFiles('#list-file', {
      name: 'team.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(['email', ...rows].join('\n')),
    });
    await page.click('text=Upload and verify');
    await page.waitForSelector('#list-status:text("completed")', { timeout: 180_000 });
    const charged = Number((await page.textContent('#list-charged'))?.replace(/\D/g, ''));
    expect(charged).toBeGreaterThan(0);
    await go(page, 'overview', 'Overview');
    const listRow = page.locator('#usage-title ~ table tr', { has: page.locator('th:text-is("list")') });
    await listRow.locator(`td:nth-of-type(2):text-is("${charged}")`).waitFor();
    expect(Number(await listRow.locator('td').first().textContent())).toBe(20);
    await inspect(page, 'overview-signed-in');

    // A developer member: invited by mail, signs in through the link, sees no billing and may not read usage.
    await go(page, 'account', 'Account');
    await page.waitForSelector('#sessions tbody tr');
    const developer = `dev.${randomBytes(3).toString('hex')}@catchall.test`;
    const sent = lab.relay.messages.length;
    await page.fill('#member-email', developer);
    await page.selectOption('#member-role', 'developer');
    await page.click('text=Invite');
    await page.waitForSelector(`#members td:text("${developer}")`);
    // Until the invitation is accepted, the member is listed as invited.
    await page.waitForSelector(`#members tr:has(td:text("${developer}")) td[data-label="Status"]:text-is("invited")`);
    const invitation = await linkToken(developer, sent);
    const member = await open(`#/invite?token=${invitation}`);
    await member.waitForSelector('#invite-password');
    await inspect(member, 'invite');
    await member.fill('#invite-password', 'developer password 1');
    await member.click('text=Join the account');
    await member.waitForSelector('h1:text("Overview")');
    expect(await member.textContent('#who')).toContain(`${developer} (developer)`);
    expect(await member.locator('#usage-title').count()).toBe(0);
    expect(await member.locator('#transactions-title').count()).toBe(0);
    expect(await member.locator('nav a[href="#/keys"]').count()).toBe(1);
    const usageStatus = await member.evaluate(
      async () => (await fetch('/v1/credits/usage', { credentials: 'same-origin' })).status,
    );
    expect(usageStatus).toBe(403);
    await page.reload();
    await page.waitForSelector('#audit tbody tr');
    expect(await page.textContent('#audit')).toContain('member.invite');
    await inspect(page, 'account');

    // A password reset through the relay: every earlier session of the owner ends.
    const before = lab.relay.messages.length;
    const forgot = await open('#/forgot');
    await forgot.fill('#forgot-email', owner);
    await forgot.click('text=Send the link');
    await forgot.waitForSelector('#reset-sent');
    await inspect(forgot, 'forgot');
    const reset = await linkToken(owner, before);
    await forgot.goto(`${gateway.url}/dashboard/#/reset?token=${reset}`);
    await forgot.fill('#reset-password', 'second password 2');
    await forgot.click('text=Change the password');
    await forgot.waitForSelector('#reset-done');
    await inspect(forgot, 'reset');
    await page.reload();
    await page.waitForSelector('#signin-email');
    await signInWithPassword(page, owner, 'second password 2');
  });

  it('refuses a used or made-up reset link in words, and lays out the account pages signed out', async () => {
    const page = await open('#/forgot');
    await page.fill('#forgot-email', 'nobody.here@acme.test');
    await page.click('text=Send the link');
    await page.waitForSelector('#reset-sent');
    await page.goto(`${gateway.url}/dashboard/#/reset?token=not-a-real-token`);
    await page.fill('#reset-password', 'brand new password');
    await page.click('text=Change the password');
    await page.waitForSelector('.problem, #signin-refused');
    await inspect(page, 'reset-refused');
  });
}
