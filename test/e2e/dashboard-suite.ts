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

  beforeAll(async () => {
    lab = await startLab(loadScenario());
    database = await createTestDatabase();
    const env = {
      ...lab.env,
      DATABASE_URL: database.url,
      ...(distributed ? { REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: prefix } : {}),
      SMTP_TIMEOUT_MS: '3000',
      SIGNUP_LIMIT_PER_IP_HOUR: '1000',
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
  });

  afterAll(async () => {
    await browser?.close();
    await Promise.all(workers.map((worker) => worker.stop()));
    await gateway?.stop();
    await database?.drop();
    await lab?.stop();
    if (distributed) await flushRedisPrefix(prefix);
  });

  async function open(hash = ''): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: gateway.url });
    contexts.push(context);
    const page = await context.newPage();
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    await page.goto(`${gateway.url}/dashboard/${hash}`);
    return page;
  }

  async function signIn(page: Page, key: string): Promise<void> {
    await page.goto(`${gateway.url}/dashboard/#/signin`);
    await page.fill('#signin-key', key);
    await page.click('button[type=submit]');
    await page.waitForSelector('h1:text("Overview")');
  }

  async function go(page: Page, path: string, title: string): Promise<void> {
    await page.click(`nav a[href="#/${path}"]`);
    await page.waitForSelector(`h1:text("${title}")`);
  }

  /** axe-core in the page (evaluated by the driver, so the page's CSP does not apply); then both screenshots. */
  async function inspect(page: Page, name: string): Promise<void> {
    await page.evaluate(axe.source);
    const found = (await page.evaluate(
      'axe.run(document, { resultTypes: ["violations"] }).then(r => r.violations.map(v => ({ id: v.id, impact: v.impact, nodes: v.nodes.map(n => n.target.join(" ")) })))',
    )) as Array<{
      id: string;
      impact: string;
      nodes: string[];
    }>;
    expect({
      page: name,
      violations: found.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical'),
    }).toEqual({ page: name, violations: [] });
    await page.screenshot({ path: join(SCREENSHOTS, `${name}-1280.png`), fullPage: true });
    await page.setViewportSize({ width: 375, height: 800 });
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
    await page.waitForSelector('#signin-key');
    await inspect(page, 'signin');
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
    await page.waitForSelector('#signin-key');
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
}
