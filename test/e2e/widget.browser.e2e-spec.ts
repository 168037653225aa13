import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { verifyGuardToken } from '@mailguard/widget';
import { BUILT_IN, LANGS } from '../../apps/widget/src/messages';
import { startLab, type Lab } from '../lab';
import { loadScenario } from '../lab/scenario';
import { apiClient, type ApiCall } from '../support/api-client';
import { launchChromium, startPageServer, type PageServer } from '../support/browser';
import { startGatewayProcess, type RunningProcess } from '../support/processes';
import { createTestDatabase, type TestDatabase } from '../support/services';

/**
 * The Guard widget (docs/widget.md, docs/widget.md) in headless Chromium: the real script from the running
 * gateway, on a page of a second origin, checking addresses in the mail lab.
 */
jest.setTimeout(60_000);

const VALID = 'john.doe@acme.test';
const INVALID = 'nobody@acme.test';
const DISPOSABLE = 'temp@mailinator.com';
const FREE = 'real.person@gmail.com';
const CATCH_ALL = 'someone@catchall.test';
const ROLE = 'info@acme.test';
const SCREENSHOTS = resolve(__dirname, '../../artifacts/widget');

interface Account {
  apiKey: string;
  widgetKey: string;
  webhookSecret: string;
}

interface Reported {
  type: 'valid' | 'invalid' | 'warning';
  email: string;
  keys: string[];
  reason?: string;
  status: string;
}

let lab: Lab;
let database: TestDatabase;
let gateway: RunningProcess;
let site: PageServer;
let browser: Browser;
let api: ApiCall;
let account: Account;
let contexts: BrowserContext[] = [];
let signups = 0;

async function newAccount(): Promise<Account> {
  const signup = await api<{ apiKey: string; webhookSecret: string; account: { id: string } }>('POST', '/v1/accounts', {
    body: { email: `owner${++signups}@catchall.test` },
  });
  expect(signup.status).toBe(201);
  await database.setBalance(signup.body.account.id, 100_000);
  const key = await api<{ key: string }>('POST', '/v1/keys', {
    key: signup.body.apiKey,
    body: { name: 'site', scope: 'verify', type: 'widget' },
  });
  expect(key.status).toBe(201);
  return { apiKey: signup.body.apiKey, widgetKey: key.body.key, webhookSecret: signup.body.webhookSecret };
}

beforeAll(async () => {
  lab = await startLab(loadScenario());
  database = await createTestDatabase();
  gateway = await startGatewayProcess(
    { ...lab.env, DATABASE_URL: database.url, SMTP_TIMEOUT_MS: '3000', SIGNUP_LIMIT_PER_IP_HOUR: '1000' },
    mkdtempSync(join(tmpdir(), 'mailguard-widget-')),
  );
  api = apiClient(gateway.url);
  site = await startPageServer(`${gateway.url}/v1/widget/widget.js`);
  browser = await launchChromium();
  account = await newAccount();
  mkdirSync(SCREENSHOTS, { recursive: true });
});

beforeEach(async () => {
  // A key per test: each key has its own per-visitor minute limit (KEYED_PER_IP_MINUTE).
  const key = await api<{ key: string }>('POST', '/v1/keys', {
    key: account.apiKey,
    body: { name: 'site', scope: 'verify', type: 'widget' },
  });
  account.widgetKey = key.body.key;
});

afterEach(async () => {
  await Promise.all(contexts.map((context) => context.close()));
  contexts = [];
});

afterAll(async () => {
  await browser?.close();
  await site?.stop();
  await gateway?.stop();
  await database?.drop();
  await lab?.stop();
});

/** A fresh visitor (own storage, so its own device id) on the customer's page. */
async function visit(url: string): Promise<Page> {
  const context = await browser.newContext();
  contexts.push(context);
  const page = await context.newPage();
  await page.goto(url);
  return page;
}

const openForm = (handleInPage = true) => visit(`${site.origin}/form${handleInPage ? '?js=1' : ''}`);

/** `Guard.init` with the given options and callbacks that record their payloads in `window.events`. */
async function init(page: Page, options: Record<string, unknown> = {}): Promise<void> {
  await page.evaluate(`Guard.init(Object.assign(${JSON.stringify(options)}, {
    onValid: function (e) { events.push({ type: 'valid', email: e.email, keys: Object.keys(e).sort(), status: e.result.status }); },
    onInvalid: function (e) { events.push({ type: 'invalid', email: e.email, keys: Object.keys(e).sort(), reason: e.reason, status: e.result.status }); },
    onWarning: function (e) { events.push({ type: 'warning', email: e.email, keys: Object.keys(e).sort(), reason: e.result.reason, status: e.result.status }); }
  }))`);
}

const keyed = (options: Record<string, unknown> = {}) => ({ apiKey: account.widgetKey, ...options });
const reported = (page: Page) => page.evaluate('window.events') as Promise<Reported[]>;
const submits = (page: Page) => page.evaluate('window.submits') as Promise<number>;

async function enter(page: Page, email: string, status: string, selector = '#email'): Promise<void> {
  await page.fill(selector, email);
  await page.waitForSelector(`${selector}[data-guard-status="${status}"]`);
}

async function tooltip(page: Page): Promise<string | null> {
  const element = await page.$('[data-guard-tooltip]');
  return element ? element.textContent() : null;
}

const style = (page: Page, property: string, selector = '#email') =>
  page.evaluate(
    `getComputedStyle(document.querySelector(${JSON.stringify(selector)})).getPropertyValue(${JSON.stringify(property)})`,
  ) as Promise<string>;

describe('Guard in Chromium', () => {
  it('defaults: a valid address gets the valid icon inside the input, room for it, no tooltip, and onValid', async () => {
    const page = await openForm();
    const paddingBefore = parseFloat(await style(page, 'padding-right'));
    await init(page, keyed());
    await enter(page, VALID, 'valid');
    expect(await page.$('[data-guard-icon="valid"]')).not.toBeNull();
    expect(parseFloat(await style(page, 'padding-right'))).toBeGreaterThanOrEqual(paddingBefore + 16);
    const input = await page.$eval('#email', (element) => element.getBoundingClientRect().toJSON());
    const icon = await page.$eval('[data-guard-icon]', (element) => element.getBoundingClientRect().toJSON());
    expect(icon.right).toBeLessThanOrEqual(input.right);
    expect(icon.left).toBeGreaterThan(input.right - 40);
    expect(icon.top).toBeGreaterThanOrEqual(input.top);
    expect(icon.bottom).toBeLessThanOrEqual(input.bottom);
    expect(await tooltip(page)).toBeNull();
    expect(await reported(page)).toEqual([{ type: 'valid', email: VALID, keys: ['email', 'result'], status: 'valid' }]);
    await page.click('#send');
    expect(await submits(page)).toBe(1);
  });

  it('an invalid address: blocked icon, red highlight with the same radius, tooltip, aria, onInvalid, and the submit is stopped', async () => {
    const page = await openForm();
    const radius = await style(page, 'border-radius');
    await init(page, keyed());
    await enter(page, INVALID, 'invalid');
    expect(await page.$('[data-guard-icon="invalid"]')).not.toBeNull();
    expect(await style(page, 'border-top-color')).toBe('rgb(220, 38, 38)');
    expect(await style(page, 'background-color')).toBe('rgb(254, 242, 242)');
    expect(await style(page, 'border-radius')).toBe(radius);
    expect(await tooltip(page)).toBe('Please enter a valid email address');
    expect(await page.getAttribute('#email', 'aria-invalid')).toBe('true');
    const tooltipId = await page.getAttribute('[data-guard-tooltip]', 'id');
    expect(await page.getAttribute('#email', 'aria-describedby')).toBe(tooltipId);
    expect(await page.textContent('[data-guard-live]')).toBe('Please enter a valid email address');
    const box = await page.$eval('#email', (element) => element.getBoundingClientRect().toJSON());
    const tip = await page.$eval('[data-guard-tooltip]', (element) => element.getBoundingClientRect().toJSON());
    expect(tip.top).toBeGreaterThanOrEqual(box.bottom);
    expect(await reported(page)).toEqual([
      { type: 'invalid', email: INVALID, keys: ['email', 'reason', 'result'], reason: 'invalid', status: 'invalid' },
    ]);
    await page.click('#send');
    expect(await submits(page)).toBe(0);
  });

  it('speaks each language, and custom messages win over lang', async () => {
    const page = await openForm();
    for (const lang of LANGS) {
      await init(page, keyed({ lang }));
      await enter(page, `nobody.${lang}@acme.test`, 'invalid');
      expect(await tooltip(page)).toBe(BUILT_IN[lang].invalid);
    }
    expect(BUILT_IN.it.invalid).not.toBe(BUILT_IN.en.invalid);
    await init(page, keyed({ lang: 'it', messages: { invalid: 'Indirizzo da ricontrollare' } }));
    await enter(page, 'nobody.custom@acme.test', 'invalid');
    expect(await tooltip(page)).toBe('Indirizzo da ricontrollare');
  });

  it('blocks disposable addresses by default, and lets them through as risky with blockDisposable: false', async () => {
    const page = await openForm();
    await init(page, keyed());
    await enter(page, DISPOSABLE, 'disposable');
    expect(await page.$('[data-guard-icon="disposable"]')).not.toBeNull();
    expect(await tooltip(page)).toBe('Disposable emails are not allowed');
    await page.click('#send');
    expect(await submits(page)).toBe(0);
    await init(page, keyed({ messages: { disposable: 'No throwaway inboxes' } }));
    await page.waitForSelector('#email[data-guard-status="disposable"]');
    expect(await tooltip(page)).toBe('No throwaway inboxes');
    await init(page, keyed({ blockDisposable: false, lang: 'it' }));
    await page.waitForSelector('#email[data-guard-status="risky"]');
    expect(await page.$('[data-guard-icon="risky"]')).not.toBeNull();
    expect(await tooltip(page)).toBeNull();
    await page.click('#send');
    expect(await submits(page)).toBe(1);
    const blocked = {
      type: 'invalid',
      email: DISPOSABLE,
      keys: ['email', 'reason', 'result'],
      reason: 'disposable',
      status: 'risky',
    };
    expect(await reported(page)).toEqual([
      blocked,
      blocked,
      { type: 'warning', email: DISPOSABLE, keys: ['email', 'result'], reason: 'disposable', status: 'risky' },
    ]);
  });

  it('lets free addresses through by default, and blocks them with blockFree: true (en and it)', async () => {
    const page = await openForm();
    await init(page, keyed());
    await enter(page, FREE, 'valid');
    await init(page, keyed({ blockFree: true }));
    await page.waitForSelector('#email[data-guard-status="free"]');
    expect(await tooltip(page)).toBe('Please use a work email address');
    expect(await page.$('[data-guard-icon="free"]')).not.toBeNull();
    await init(page, keyed({ blockFree: true, lang: 'it' }));
    await page.waitForSelector('#email[data-guard-status="free"]');
    expect(await tooltip(page)).toBe(BUILT_IN.it.free);
    await init(page, keyed({ blockFree: true, lang: 'it', messages: { free: 'Only company addresses, please' } }));
    await page.waitForSelector('#email[data-guard-status="free"]');
    expect(await tooltip(page)).toBe('Only company addresses, please');
    const events = await reported(page);
    expect(events[0]).toEqual({ type: 'valid', email: FREE, keys: ['email', 'result'], status: 'valid' });
    expect(events[1]).toEqual({
      type: 'invalid',
      email: FREE,
      keys: ['email', 'reason', 'result'],
      reason: 'free',
      status: 'valid',
    });
  });

  it('warns about catch-all and role addresses (risky, onWarning) and shows messages.warning only when set', async () => {
    const page = await openForm();
    await init(page, keyed());
    await enter(page, CATCH_ALL, 'risky');
    expect(await tooltip(page)).toBeNull();
    await page.fill('#email', '');
    await init(page, keyed({ messages: { warning: 'This address may not receive mail' } }));
    await enter(page, ROLE, 'risky');
    expect(await tooltip(page)).toBe('This address may not receive mail');
    await page.click('#send');
    expect(await submits(page)).toBe(1);
    expect(await reported(page)).toEqual([
      { type: 'warning', email: CATCH_ALL, keys: ['email', 'result'], reason: 'catch_all', status: 'risky' },
      { type: 'warning', email: ROLE, keys: ['email', 'result'], reason: 'role', status: 'risky' },
    ]);
  });

  it('shows messages.valid on success when it is set', async () => {
    const page = await openForm();
    await init(page, keyed({ messages: { valid: 'Looks good' } }));
    await enter(page, VALID, 'valid');
    expect(await tooltip(page)).toBe('Looks good');
  });

  it('showIcon: false draws no icon and adds no padding; showTooltip: false shows no text; redHighlight: false keeps the border', async () => {
    const page = await openForm();
    const padding = await style(page, 'padding-right');
    const border = await style(page, 'border-top-color');
    await init(page, keyed({ showIcon: false, showTooltip: false, redHighlight: false }));
    await enter(page, INVALID, 'invalid');
    expect(await page.$('[data-guard-icon]')).toBeNull();
    expect(await page.$('[data-guard-tooltip]')).toBeNull();
    expect(await style(page, 'padding-right')).toBe(padding);
    expect(await style(page, 'border-top-color')).toBe(border);
    expect(await page.getAttribute('#email', 'aria-invalid')).toBe('true');
    await page.click('#send');
    expect(await submits(page)).toBe(0);
  });

  it('blockSubmit: false lets a blocked address through and leaves the decision to the page', async () => {
    const page = await openForm();
    await init(page, keyed({ blockSubmit: false }));
    await enter(page, INVALID, 'invalid');
    await page.click('#send');
    expect(await submits(page)).toBe(1);
    expect(await reported(page)).toEqual([expect.objectContaining({ type: 'invalid', reason: 'invalid' })]);
  });

  it('a submit before the check holds the form until the answer: a valid address goes through with a guard_token the site can verify', async () => {
    const page = await openForm(false);
    await init(page, keyed());
    await page.fill('#email', VALID);
    await Promise.all([page.waitForURL(/\/submitted\?/), page.click('#send')]);
    const sent = new URL(page.url()).searchParams;
    expect(sent.get('email')).toBe(VALID);
    const claims = verifyGuardToken(sent.get('guard_token') as string, account.webhookSecret);
    expect(claims).toMatchObject({ email: VALID, status: 'valid', disposable: false, free: false });
  });

  it('a submit before the check of an invalid address is stopped once the answer comes', async () => {
    const page = await openForm();
    await init(page, keyed());
    await page.fill('#email', 'nobody.early@acme.test');
    await page.click('#send');
    await page.waitForSelector('#email[data-guard-status="invalid"]');
    expect(await submits(page)).toBe(0);
  });

  it('protects every matching input of several forms, and inputs added later after reattach()', async () => {
    const page = await openForm();
    await init(page, keyed());
    await enter(page, INVALID, 'invalid', '#email2');
    await page.evaluate(`(function () {
      var input = document.createElement('input');
      input.type = 'email'; input.id = 'email3';
      document.getElementById('later').appendChild(input);
    })()`);
    await page.fill('#email3', VALID);
    await page.dispatchEvent('#email3', 'blur');
    expect(await page.getAttribute('#email3', 'data-guard-status')).toBeNull();
    await page.evaluate('Guard.reattach()');
    await page.fill('#email3', 'jane@acme.test');
    await page.waitForSelector('#email3[data-guard-status="valid"]');
    await page.click('#send2');
    expect(await submits(page)).toBe(0);
  });

  it('debounces typing into one check, and asks once per address in the page', async () => {
    const page = await openForm();
    const asked: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/v1/widget/verify')) asked.push(request.postData() ?? '');
    });
    await init(page, keyed());
    await page.type('#email', 'lisa.wong@catchall.test', { delay: 40 });
    await page.waitForSelector('#email[data-guard-status="risky"]');
    await page.fill('#email', '');
    expect(await page.getAttribute('#email', 'data-guard-status')).toBeNull();
    await enter(page, 'lisa.wong@catchall.test', 'risky');
    expect(asked).toHaveLength(1);
    expect(JSON.parse(asked[0])).toEqual({
      email: 'lisa.wong@catchall.test',
      deviceId: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
  });

  it('shows the answer for the latest value only: a slower answer to an older value is dropped', async () => {
    const page = await openForm();
    await init(page, keyed());
    const slowAnswer = page.waitForResponse(
      (response) =>
        response.url().endsWith('/v1/widget/verify') && (response.request().postData() ?? '').includes('slow.test'),
    );
    await enter(page, 'someone@slow.test', 'checking');
    await enter(page, VALID, 'valid');
    await slowAnswer;
    // The old answer has been read by the page by now; the status stays the latest value's.
    await page.evaluate('new Promise(function (resolve) { setTimeout(resolve, 0); })');
    expect(await page.getAttribute('#email', 'data-guard-status')).toBe('valid');
    expect((await reported(page)).map((event) => event.email)).toEqual([VALID]);
  });

  it('works when the site initialises it in <head>, before the form exists', async () => {
    const page = await visit(`${site.origin}/form?js=1&head=${encodeURIComponent(JSON.stringify(keyed()))}`);
    await enter(page, INVALID, 'invalid');
    await page.click('#send');
    expect(await submits(page)).toBe(0);
  });

  it('checks any selector it is given', async () => {
    const page = await openForm();
    await init(page, keyed({ selector: '#email2' }));
    await enter(page, INVALID, 'invalid', '#email2');
    await page.fill('#email', INVALID);
    await page.dispatchEvent('#email', 'blur');
    expect(await page.getAttribute('#email', 'data-guard-status')).toBeNull();
  });

  it('destroy() removes every icon, tooltip, attribute, style and listener it added', async () => {
    const page = await openForm();
    const before = await page.$eval('#email', (element) => element.outerHTML);
    const cdp = await page.context().newCDPSession(page);
    const listeners = async (expression: string) => {
      const { result } = await cdp.send('Runtime.evaluate', { expression });
      const { listeners: found } = await cdp.send('DOMDebugger.getEventListeners', {
        objectId: result.objectId as string,
      });
      return found.map((listener) => listener.type).sort();
    };
    const pageOwn = await listeners('document');
    await init(page, keyed());
    await enter(page, INVALID, 'invalid');
    expect(await listeners("document.getElementById('email')")).toEqual(['blur', 'change', 'input']);
    await page.evaluate('Guard.destroy()');
    expect(await page.$('[data-guard-icon]')).toBeNull();
    expect(await page.$('[data-guard-tooltip]')).toBeNull();
    expect(await page.$('[data-guard-live]')).toBeNull();
    expect(await page.$$('[data-guard-status]')).toEqual([]);
    await page.fill('#email', '');
    expect(await page.$eval('#email', (element) => element.outerHTML)).toBe(before);
    expect(await listeners("document.getElementById('email')")).toEqual([]);
    expect(await listeners('document')).toEqual(pageOwn);
    await page.fill('#email', INVALID);
    await page.click('#send');
    expect(await submits(page)).toBe(1);
  });

  it('Guard.validate(email) resolves to { email, status, reason, result } and fires the callbacks', async () => {
    const page = await openForm();
    await init(page, keyed());
    const outcome = (await page.evaluate(`Guard.validate('${DISPOSABLE}')`)) as {
      email: string;
      status: string;
      reason: string;
      result: { isDisposable: boolean };
    };
    expect(outcome).toMatchObject({
      email: DISPOSABLE,
      status: 'disposable',
      reason: 'disposable',
      result: expect.objectContaining({ isDisposable: true }),
    });
    const local = (await page.evaluate(`Guard.validate('not-an-address')`)) as { status: string };
    expect(local.status).toBe('invalid');
    expect(await reported(page)).toEqual([
      expect.objectContaining({ type: 'invalid', email: DISPOSABLE, reason: 'disposable' }),
      expect.objectContaining({ type: 'invalid', email: 'not-an-address', reason: 'invalid' }),
    ]);
  });

  it('applies the account defaults from the widget settings unless init sets them', async () => {
    const owner = await newAccount();
    const put = await api('PUT', '/v1/widget/settings', {
      key: owner.apiKey,
      body: { defaults: { blockFree: true, lang: 'de' } },
    });
    expect(put.status).toBe(200);
    const page = await openForm();
    await init(page, { apiKey: owner.widgetKey });
    await enter(page, FREE, 'free');
    expect(await tooltip(page)).toBe(BUILT_IN.de.free);
    await init(page, { apiKey: owner.widgetKey, blockFree: false });
    await page.waitForSelector('#email[data-guard-status="valid"]');
  });

  it('never blocks when the service refuses a widget key from an origin that is not allowed', async () => {
    const owner = await newAccount();
    await api('PUT', '/v1/widget/settings', {
      key: owner.apiKey,
      body: { allowedOrigins: ['https://elsewhere.example'] },
    });
    const page = await openForm();
    await init(page, { apiKey: owner.widgetKey });
    await enter(page, INVALID, 'unverified');
    await page.click('#send');
    expect(await submits(page)).toBe(1);
    // The same key from a listed origin works.
    await api('PUT', '/v1/widget/settings', {
      key: owner.apiKey,
      body: { allowedOrigins: ['https://elsewhere.example', site.origin] },
    });
    await init(page, { apiKey: owner.widgetKey });
    await page.waitForSelector('#email[data-guard-status="invalid"]');
  });

  it('never blocks when the service is down', async () => {
    const page = await openForm();
    await init(page, keyed({ apiUrl: 'http://127.0.0.1:1' }));
    await enter(page, INVALID, 'unverified');
    expect(await page.$('[data-guard-icon]')).toBeNull();
    await page.click('#send');
    expect(await submits(page)).toBe(1);
  });

  it('public tier: the fifth check of a device is unverified and the form still submits', async () => {
    const page = await openForm();
    await init(page);
    for (const email of ['a.one@acme.test', 'a.two@acme.test', 'a.three@acme.test', 'a.four@acme.test']) {
      expect(((await page.evaluate(`Guard.validate('${email}')`)) as { status: string }).status).toBe('invalid');
    }
    await enter(page, INVALID, 'unverified');
    expect(await page.$('[data-guard-tooltip]')).toBeNull();
    await page.click('#send');
    expect(await submits(page)).toBe(1);
  });

  describe('the demo page (screenshots in artifacts/widget)', () => {
    const demo = () => visit(`${gateway.url}/widget/demo/`);
    const shoot = (page: Page, name: string) =>
      page.screenshot({ path: join(SCREENSHOTS, `demo-${name}.png`), fullPage: true });

    it.each([
      ['valid', VALID, 'valid'],
      ['invalid', INVALID, 'invalid'],
      ['disposable', DISPOSABLE, 'disposable'],
      ['risky', CATCH_ALL, 'risky'],
      ['free', FREE, 'free'],
      ['checking', 'visitor@slow.test', 'checking'],
    ])('shows the %s state', async (name, email, status) => {
      const page = await demo();
      if (status === 'free') await page.check('#opt-free');
      await page.fill('#email', email);
      await page.waitForSelector(`#email[data-guard-status="${status}"]`);
      if (status !== 'checking') await page.waitForSelector(`#events li`);
      // The drawn icon (the spinner turning too) stays inside the input's right edge.
      const input = await page.$eval('#email', (element) => element.getBoundingClientRect().toJSON());
      const icon = await page.$eval('[data-guard-icon] svg', (element) => element.getBoundingClientRect().toJSON());
      expect(icon.left).toBeGreaterThan(input.right - 40);
      expect(icon.right).toBeLessThanOrEqual(input.right);
      expect(icon.top).toBeGreaterThanOrEqual(input.top);
      expect(icon.bottom).toBeLessThanOrEqual(input.bottom);
      await shoot(page, name);
    });

    it('shows the unverified state once the free tier is used up', async () => {
      const page = await demo();
      for (const email of ['d.one@acme.test', 'd.two@acme.test', 'd.three@acme.test', 'd.four@acme.test'])
        await page.evaluate(`Guard.validate('${email}')`);
      await page.fill('#email', VALID);
      await page.waitForSelector('#email[data-guard-status="unverified"]');
      await shoot(page, 'unverified');
      await Promise.all([page.waitForURL(/submitted/), page.click('button[type=submit]')]);
    });
  });
});
