import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { apiClient, type ApiCall, type ApiOptions } from '../support/api-client';
import { PEOPLE, SOAK_ADMIN_TOKEN, STUBBORN_DOMAIN, type SoakDomain } from './world';

/**
 * One soak cycle: every surface of the API at once, as customers use it — single and batch
 * checks, finder hits and misses, domain insight, two lists (one cancelled mid-way), widget checks
 * on the free tier and with a widget key, feedback, a sign-up, keys created and revoked, an
 * agent's tool calls over MCP, a person signed in with a password, and an operator's actions.
 */

export const SURFACES = [
  'single',
  'batch',
  'finder',
  'insight',
  'lists',
  'widget',
  'feedback',
  'keys',
  'mcp',
  'people',
  'operators',
] as const;
export type Surface = (typeof SURFACES)[number];

interface Result {
  reachable?: string;
  domain?: string;
}

/** What one cycle asked and got back. */
export class Tally {
  readonly requests = Object.fromEntries(SURFACES.map((surface) => [surface, 0])) as Record<Surface, number>;
  readonly statuses: Record<number, number> = {};
  readonly durations: number[] = [];
  /** Answers whose `reachable` was `unknown`; and of those, answers for strict domains (a figure: under load a deadline may pass). */
  unknown = 0;
  unknownStrict = 0;
  /** Statuses the cycle did not expect, and answers that broke the contract. */
  readonly unexpected: string[] = [];
  /** Lists that completed with a webhook URL: each is owed one signed delivery. */
  readonly completedLists: string[] = [];

  constructor(private readonly strict: Set<string>) {}

  async track<T>(
    surface: Surface,
    expected: number[],
    what: string,
    send: () => Promise<{ status: number; body: T }>,
  ): Promise<{ status: number; body: T }> {
    const started = performance.now();
    const response = await send();
    this.durations.push(performance.now() - started);
    this.requests[surface]++;
    this.statuses[response.status] = (this.statuses[response.status] ?? 0) + 1;
    if (!expected.includes(response.status))
      this.unexpected.push(`${what}: ${response.status} ${JSON.stringify(response.body).slice(0, 300)}`);
    return response;
  }

  results(results: Result[]): void {
    const unknown = results.filter((result) => result?.reachable === 'unknown');
    this.unknown += unknown.length;
    this.unknownStrict += unknown.filter((result) => this.strict.has(result.domain ?? '')).length;
  }

  percentile(p: number): number {
    const sorted = [...this.durations].sort((a, b) => a - b);
    return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
  }
}

/** Receives list webhooks and checks their signature; counts deliveries per list. */
export class WebhookReceiver {
  readonly deliveries = new Map<string, number>();
  readonly bad: string[] = [];
  private server?: Server;
  url = '';

  constructor(private readonly secret: () => string) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const expected = `sha256=${createHmac('sha256', this.secret()).update(body).digest('hex')}`;
        if (req.headers['x-mailguard-signature'] !== expected) this.bad.push(`bad signature on ${body.slice(0, 200)}`);
        else {
          const id = (JSON.parse(body) as { id: string }).id;
          this.deliveries.set(id, (this.deliveries.get(id) ?? 0) + 1);
        }
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}/hook`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

export interface CycleContext {
  url: string;
  /** The soak's own account: a full key with a large balance. */
  key: string;
  domains: SoakDomain[];
  webhooks: WebhookReceiver;
}

interface ListView {
  id: string;
  status: string;
  total: number;
  processed: number;
  duplicates: number;
  creditsHeld: number;
  creditsCharged: number;
  counts: { valid: number; risky: number; invalid: number };
}

/** How long a cycle waits for its list to settle, or its other list to start, before it reports it. */
const LIST_TIMEOUT_MS = 60_000;
/** Checks in flight at once in the single-check lane: more than one MX host's slots (5), so probes also wait for slots. */
const SINGLE_CONCURRENCY = 8;

const person = (index: number) =>
  `${PEOPLE[index % PEOPLE.length][0]}.${PEOPLE[index % PEOPLE.length][1]}`.toLowerCase();
export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `condition` until it returns null (holds) or the time is up; returns the last complaint. */
export async function until(condition: () => Promise<string | null>, timeoutMs: number): Promise<string | null> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const complaint = await condition();
    if (complaint === null || Date.now() > deadline) return complaint;
    await pause(200);
  }
}

/** Addresses of cycle `cycle`: known people (cached after their first check), fresh unknown users, and malformed ones. */
function addresses(domains: SoakDomain[], cycle: number, count: number, tag: string): string[] {
  const list: string[] = [];
  for (let i = 0; i < count; i++) {
    const domain = domains[(i + cycle) % domains.length].name;
    if (i % 3 === 0) list.push(`${person(i + cycle)}@${domain}`);
    else if (i % 3 === 1) list.push(`${tag}.c${cycle}.${i}@${domain}`);
    else list.push(`${person(0)}@${domain}`);
  }
  list.push('not an address', `someone@nx${cycle}.soak`);
  return list;
}

/** `scale` multiplies the single checks, batches and the completed list's rows (the long run's cycles are heavier). */
export async function runCycle(context: CycleContext, cycle: number, scale = 1): Promise<Tally> {
  const tally = new Tally(
    new Set(context.domains.filter((domain) => domain.role === 'strict').map((domain) => domain.name)),
  );
  const api: ApiCall = apiClient(context.url);
  const call = <T = Record<string, unknown>>(
    surface: Surface,
    expected: number[],
    method: string,
    path: string,
    options: ApiOptions = {},
  ) =>
    tally.track<T>(surface, expected, `${method} ${path}`, () =>
      api<T>(method, path, { key: context.key, ...options }),
    );
  const strict = context.domains.filter((domain) => domain.role === 'strict');
  const catchAll = context.domains.filter((domain) => domain.role === 'catch-all');
  const dark = context.domains.filter((domain) => domain.role === 'dark');
  // Each cycle is a client address of its own: the widget's public tier counts per address and UTC day.
  const clientIp = (n: number) => `10.${(cycle >> 8) & 255}.${cycle & 255}.${n}`;

  async function singles(): Promise<void> {
    const queue = addresses(context.domains, cycle, 60 * scale, 'single');
    await Promise.all(
      Array.from({ length: SINGLE_CONCURRENCY }, async () => {
        for (let email = queue.shift(); email !== undefined; email = queue.shift()) {
          const answer = await call<Result>(
            'single',
            [200],
            'GET',
            `/v1/email-validation/${encodeURIComponent(email)}`,
          );
          tally.results([answer.body]);
        }
      }),
    );
  }

  async function batches(): Promise<void> {
    for (let b = 0; b < 3 * scale; b++) {
      const emails = addresses(context.domains, cycle + b, 22, `batch${b}`);
      // Duplicates, one of them in another case: checked and charged once.
      emails.push(emails[0], emails[3].toUpperCase(), emails[1]);
      const answer = await call<{ results: Result[] }>('batch', [200], 'POST', '/v1/email-validation/batch', {
        body: { emails },
      });
      if (answer.status !== 200) continue;
      if (answer.body.results.length !== emails.length)
        tally.unexpected.push(`batch of ${emails.length} answered ${answer.body.results.length} results`);
      tally.results(answer.body.results);
    }
  }

  async function finder(): Promise<void> {
    const at = (list: SoakDomain[], n: number) => list[(cycle + n) % list.length].name;
    const hits = [0, 1].map((n) => [PEOPLE[(cycle + n) % PEOPLE.length], at(strict, n)] as const);
    for (const [[first, last], domain] of hits) {
      const found = await call<{ email: string | null }>(
        'finder',
        [200],
        'GET',
        `/v1/email-finder?firstName=${first}&lastName=${last}&domain=${domain}`,
      );
      if (found.status === 200 && found.body.email !== `${first}.${last}@${domain}`.toLowerCase())
        tally.unexpected.push(
          `finder missed ${first} ${last} at ${domain}: ${JSON.stringify(found.body).slice(0, 200)}`,
        );
    }
    for (const domain of [at(strict, 2), at(strict, 3), at(catchAll, 0), at(dark, 0)]) {
      // Nobody of that name: every pattern is asked (a miss), or guessed at a catch-all domain.
      await call(
        'finder',
        [200],
        'GET',
        `/v1/email-finder?fullName=${encodeURIComponent(`Quentin Zabriskie${cycle}`)}&domain=${domain}`,
      );
    }
  }

  async function insight(): Promise<void> {
    for (const domain of [
      strict[cycle % strict.length],
      catchAll[cycle % catchAll.length],
      dark[cycle % dark.length],
      strict[(cycle + 5) % strict.length],
    ]) {
      await call('insight', [200], 'GET', `/v1/email-finder/domain/${domain.name}`);
    }
  }

  async function upload(rows: string[], fields: Record<string, string>): Promise<ListView | null> {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    form.append(
      'file',
      new Blob([`name,email\n${rows.map((email, i) => `row ${i},${email}`).join('\n')}\n`], { type: 'text/csv' }),
      `soak-${cycle}.csv`,
    );
    const created = await tally.track<ListView>('lists', [202], 'POST /v1/lists', async () => {
      const response = await fetch(`${context.url}/v1/lists`, {
        method: 'POST',
        headers: { 'X-API-Key': context.key },
        body: form,
      });
      return { status: response.status, body: (await response.json()) as ListView };
    });
    return created.status === 202 ? created.body : null;
  }

  /** Polls a list (as customers do) until `done` holds, or reports it. */
  async function waitForList(id: string, what: string, done: (list: ListView) => boolean): Promise<ListView | null> {
    const until = Date.now() + LIST_TIMEOUT_MS;
    for (;;) {
      const { status, body } = await call<ListView>('lists', [200], 'GET', `/v1/lists/${id}`);
      if (status !== 200) return null;
      if (done(body)) return body;
      if (Date.now() > until) {
        tally.unexpected.push(
          `list ${id} not ${what} after ${LIST_TIMEOUT_MS} ms: ${body.status} ${body.processed}/${body.total}`,
        );
        return null;
      }
      await pause(250);
    }
  }

  async function completedList(): Promise<void> {
    const rows: string[] = [];
    const domains = [...strict, ...catchAll, ...dark];
    for (let r = 0; rows.length < 300 * scale; r++) {
      const domain = domains[r % domains.length].name;
      if (r % 4 === 3)
        rows.push(rows[rows.length - 3]); // a duplicate of an earlier row
      else if (r % 4 === 2) rows.push(`${person(r).toUpperCase()}@${domain}`);
      else rows.push(r % 4 === 0 ? `${person(r)}@${domain}` : `list.c${cycle}.r${r}@${domain}`);
    }
    rows.push('broken address', 'another@@broken');
    const created = await upload(rows, { name: `soak ${cycle}`, webhookUrl: context.webhooks.url });
    if (!created) return;
    const done = await waitForList(created.id, 'completed', (list) => !['queued', 'processing'].includes(list.status));
    if (!done) return;
    const counted = done.counts.valid + done.counts.risky + done.counts.invalid;
    if (
      done.status !== 'completed' ||
      done.processed !== done.total ||
      counted !== done.total ||
      done.creditsHeld !== 0 ||
      done.duplicates === 0
    ) {
      tally.unexpected.push(`list ${done.id} ended ${JSON.stringify(done)}`);
    }
    if (done.status === 'completed') tally.completedLists.push(done.id);
    const page = await call<{ data: Array<{ result: Result | null }>; total: number }>(
      'lists',
      [200],
      'GET',
      `/v1/lists/${created.id}/results?limit=100&page=2`,
    );
    if (page.status === 200 && page.body.data.some((row) => !row.result))
      tally.unexpected.push(`list ${created.id} has rows without a result`);
    const csv = await tally.track('lists', [200], 'GET results.csv', async () => {
      const response = await fetch(`${context.url}/v1/lists/${created.id}/results?format=csv`, {
        headers: { 'X-API-Key': context.key },
      });
      return { status: response.status, body: await response.text() };
    });
    if (csv.status === 200 && csv.body.trim().split(/\r?\n/).length !== rows.length + 1)
      tally.unexpected.push(
        `list ${created.id} CSV has ${csv.body.trim().split(/\r?\n/).length - 1} rows, not ${rows.length}`,
      );
  }

  async function cancelledList(): Promise<void> {
    // Forever-greylisted rows keep the list running through their retries: there is time to cancel it mid-way.
    const rows = Array.from({ length: 50 }, (_, i) => `later${i}@${STUBBORN_DOMAIN}`);
    for (let r = 0; r < 100; r++) rows.push(`cancel.c${cycle}.r${r}@${strict[r % strict.length].name}`);
    const created = await upload(rows, { name: `soak ${cycle} (cancelled)` });
    if (!created) return;
    const started = await waitForList(
      created.id,
      'started',
      (list) => list.processed > 0 || !['queued', 'processing'].includes(list.status),
    );
    if (!started) return;
    const cancelled = await call<ListView>('lists', [200], 'DELETE', `/v1/lists/${created.id}`);
    if (
      cancelled.status === 200 &&
      (cancelled.body.status !== 'cancelled' ||
        cancelled.body.creditsHeld !== 0 ||
        cancelled.body.processed >= cancelled.body.total)
    ) {
      tally.unexpected.push(`list ${created.id} was not cancelled mid-way: ${JSON.stringify(cancelled.body)}`);
    }
  }

  /** A sign-up, a secret key used then revoked, and a widget key for the keyed widget checks. */
  async function keys(): Promise<string | null> {
    const signup = await tally.track<{ apiKey: string }>('keys', [201], 'POST /v1/accounts', () =>
      api<{ apiKey: string }>('POST', '/v1/accounts', {
        headers: { 'X-Forwarded-For': clientIp(3) },
        body: { email: `${person(cycle)}@${catchAll[cycle % catchAll.length].name}`.replace('@', `.c${cycle}@`) },
      }),
    );
    if (signup.status !== 201) return null;
    const owner = signup.body.apiKey;
    const created = await tally.track<{ id: string; key: string }>('keys', [201], 'POST /v1/keys', () =>
      api('POST', '/v1/keys', { key: owner, body: { name: `soak ${cycle}`, scope: 'verify' } }),
    );
    if (created.status !== 201) return null;
    await tally.track('keys', [200], 'check with a new key', () =>
      api('GET', `/v1/email-validation/${person(cycle)}@${strict[0].name}`, { key: created.body.key }),
    );
    await tally.track('keys', [204], 'DELETE /v1/keys/:id', () =>
      api('DELETE', `/v1/keys/${created.body.id}`, { key: owner }),
    );
    // From the cycle's own client address: a revoked key is an unknown key, and unknown keys are throttled per address (20 per 10 minutes).
    await tally.track('keys', [401], 'check with a revoked key', () =>
      api('GET', `/v1/email-validation/${person(cycle)}@${strict[0].name}`, {
        key: created.body.key,
        headers: { 'X-Forwarded-For': clientIp(4) },
      }),
    );
    await tally.track('keys', [200], 'GET /v1/keys', () => api('GET', '/v1/keys', { key: owner }));
    const widget = await tally.track<{ key: string }>('keys', [201], 'POST /v1/keys (widget)', () =>
      api('POST', '/v1/keys', { key: owner, body: { name: 'site', scope: 'verify', type: 'widget' } }),
    );
    return widget.status === 201 ? widget.body.key : null;
  }

  async function widget(keyed: Promise<string | null>): Promise<void> {
    const verify = (expected: number[], email: string, body: Record<string, unknown>, key?: string, ip = clientIp(1)) =>
      tally.track<Result>('widget', expected, `widget verify ${key ? 'keyed' : 'public'}`, () =>
        api<Result>('POST', '/v1/widget/verify', {
          key,
          headers: { 'X-Forwarded-For': ip, Origin: 'https://shop.example' },
          body: { email, ...body },
        }),
      );
    // The public tier: four checks per device, the fifth refused (429); a second device has its own four.
    for (const device of [`soak-${cycle}-a`, `soak-${cycle}-b`]) {
      for (let i = 0; i < 4; i++)
        tally.results([
          (await verify([200], `${person(i)}@${strict[(cycle + i) % strict.length].name}`, { deviceId: device })).body,
        ]);
    }
    await verify([429], `${person(0)}@${strict[0].name}`, { deviceId: `soak-${cycle}-a` });
    const key = await keyed;
    if (!key) return;
    for (let i = 0; i < 8; i++)
      tally.results([
        (await verify([200], `widget.c${cycle}.${i}@${strict[i % strict.length].name}`, {}, key, clientIp(2))).body,
      ]);
  }

  async function feedback(): Promise<void> {
    for (let i = 0; i < 4; i++) {
      const email = `${person(i)}@${catchAll[i % catchAll.length].name}`;
      await call('feedback', [202], 'POST', '/v1/email-validation/feedback', {
        body: { email, outcome: i % 2 === 0 ? 'delivered' : 'bounced' },
      });
    }
  }

  /** An agent's session over streamable HTTP: the tool list, single and batch checks, a finder call, the balance. */
  async function agent(): Promise<void> {
    const client = new Client({ name: 'soak', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${context.url}/mcp`), {
        requestInit: { headers: { 'X-API-Key': context.key } },
      }),
    );
    try {
      const tool = (what: string, name: string, args: Record<string, unknown>) =>
        tally.track<{ structuredContent?: unknown }>('mcp', [200], what, async () => {
          const result = await client.callTool({ name, arguments: args });
          return {
            status: result.isError ? 400 : 200,
            body: { structuredContent: 'structuredContent' in result ? result.structuredContent : undefined },
          };
        });
      await tally.track('mcp', [200], 'tools/list', async () => ({
        status: (await client.listTools()).tools.length > 0 ? 200 : 500,
        body: {},
      }));
      for (let i = 0; i < 3 * scale; i++) {
        const answer = await tool('verify_email', 'verify_email', {
          email: `${person(i + cycle)}@${strict[(i + cycle) % strict.length].name}`,
        });
        tally.results([answer.body.structuredContent as Result]);
      }
      const batch = await tool('verify_emails', 'verify_emails', {
        emails: addresses(context.domains, cycle, 5, 'agent'),
      });
      tally.results((batch.body.structuredContent as { results?: Result[] } | undefined)?.results ?? []);
      await tool('find_email', 'find_email', {
        firstName: PEOPLE[cycle % PEOPLE.length][0],
        lastName: PEOPLE[cycle % PEOPLE.length][1],
        domain: strict[cycle % strict.length].name,
      });
      await tool('credits', 'credits', {});
    } finally {
      await client.close();
    }
  }

  /**
   * A person's visit: sign-up with a password, a session (cookie, CSRF token), its calls and sign-out; meanwhile an
   * operator grants credits, suspends the account (its key and session refused) and lifts the suspension.
   */
  async function people(): Promise<void> {
    const email = `owner.c${cycle}@${catchAll[cycle % catchAll.length].name}`;
    const password = `soak password ${cycle}`;
    const signup = await tally.track<{ apiKey: string; account: { id: string } }>(
      'people',
      [201],
      'POST /v1/accounts (password)',
      () => api('POST', '/v1/accounts', { headers: { 'X-Forwarded-For': clientIp(5) }, body: { email, password } }),
    );
    if (signup.status !== 201) return;
    let cookie = '';
    let csrf = '';
    await tally.track('people', [200], 'POST /auth/login', async () => {
      const response = await api('POST', '/auth/login', {
        headers: { 'X-Forwarded-For': clientIp(5) },
        body: { email, password },
      });
      const pairs = response.headers.getSetCookie().map((line) => line.split(';')[0]);
      cookie = pairs.join('; ');
      csrf = pairs.find((pair) => pair.startsWith('mg_csrf='))?.slice('mg_csrf='.length) ?? '';
      return response;
    });
    const session = (expected: number[], method: string, path: string, body?: unknown, token = csrf) =>
      tally.track('people', expected, `${method} ${path} (session${token ? '' : ', no CSRF token'})`, () =>
        api(method, path, { headers: { Cookie: cookie, ...(token ? { 'X-CSRF-Token': token } : {}) }, body }),
      );
    const operator = (expected: number[], method: string, path: string, body?: unknown) =>
      tally.track('operators', expected, `${method} ${path.replace(signup.body.account.id, ':id')}`, () =>
        api(method, path, { headers: { Authorization: `Bearer ${SOAK_ADMIN_TOKEN}` }, body }),
      );
    const account = `/admin/accounts/${signup.body.account.id}`;
    await session([200], 'GET', '/v1/credits');
    await session([403], 'POST', '/v1/keys', { name: 'no token' }, '');
    await session([201], 'POST', '/v1/keys', { name: `soak ${cycle}`, scope: 'verify' });
    await session([200], 'GET', '/auth/sessions');
    await session([202], 'POST', '/auth/password-reset', { email });
    await operator([201], 'POST', `${account}/credits`, { amount: 100, reason: `soak ${cycle}` });
    await operator([200], 'POST', `${account}/suspend`, { reason: `soak ${cycle}` });
    await tally.track('operators', [403], 'check by a suspended account', () =>
      api('GET', '/v1/credits', { key: signup.body.apiKey }),
    );
    await session([403], 'GET', '/v1/credits');
    await operator([200], 'POST', `${account}/unsuspend`, { reason: `soak ${cycle}` });
    await tally.track('operators', [200], 'check once unsuspended', () =>
      api('GET', '/v1/credits', { key: signup.body.apiKey }),
    );
    await session([200], 'GET', '/auth/audit');
    await session([204], 'POST', '/auth/logout');
    await session([401], 'GET', '/v1/credits');
  }

  const keyed = keys();
  await Promise.all([
    singles(),
    batches(),
    finder(),
    insight(),
    completedList(),
    cancelledList(),
    widget(keyed),
    feedback(),
    keyed,
    agent(),
    people(),
  ]);
  return tally;
}
