import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { TOOL_NAMES as TOOLS_OFFERED, TOOLS, type ToolName } from '@mailguard/mcp';
import { fields, TOOL_ARGUMENTS, withField, wrongType } from '../fuzz/json-bodies';
import { startLab, type Lab } from '../lab';
import { loadScenario } from '../lab/scenario';
import { apiClient, type ApiCall } from '../support/api-client';
import { E2E_CLUSTER_ENV } from '../support/cluster-env';
import { startGatewayProcess, startWorkerProcess, WORKER_KINDS, type RunningProcess } from '../support/processes';
import { createTestDatabase, flushRedisPrefix, TEST_REDIS_URL, type TestDatabase } from '../support/services';
import type { Driver } from './api-suite';

const TOOL_NAMES = [
  'verify_email',
  'verify_emails',
  'find_email',
  'domain_insight',
  'report_outcome',
  'create_list',
  'list_status',
  'list_results',
  'credits',
];
const BIN = resolve(__dirname, '../../bin/mailguard.js');

interface Signup {
  account: { id: string; email: string; credits: number };
  apiKey: string;
}

interface ToolErrorBody {
  error: string;
  code: string;
  retryAfterSeconds?: number;
}

/**
 * docs/mcp.md against the built gateway and the lab, with the SDK's own Client: the tools over
 * streamable HTTP at /mcp and over stdio (`mailguard mcp`), metered like REST by the same code,
 * on the in-process pipeline and on BullMQ with the workers as processes.
 */
export function mcpSuite(driver: Driver): void {
  jest.setTimeout(120_000);

  const distributed = driver === 'bullmq';
  const suitePrefix = `mgtest:${randomBytes(6).toString('hex')}:`;
  let workers: RunningProcess[] = [];
  let lab: Lab;
  let database: TestDatabase;
  let gateway: RunningProcess;
  let api: ApiCall;
  let signups = 0;
  const clients: Client[] = [];

  const workDir = () => mkdtempSync(join(tmpdir(), 'mailguard-mcp-'));

  function gatewayEnv(extra: Record<string, string> = {}): Record<string, string> {
    return {
      ...lab.env,
      DATABASE_URL: database.url,
      ...(distributed ? { REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: suitePrefix } : {}),
      ...E2E_CLUSTER_ENV,
      TRUST_PROXY: '1',
      ...extra,
    };
  }

  async function signup(): Promise<Signup> {
    const response = await api<Signup>('POST', '/v1/accounts', {
      body: { email: `agent${++signups}.${randomBytes(3).toString('hex')}@catchall.test` },
    });
    expect(response.status).toBe(201);
    return response.body;
  }

  async function createKey(key: string, scope: string, type = 'secret'): Promise<string> {
    const response = await api<{ key: string }>('POST', '/v1/keys', {
      key,
      body: { name: `${scope} key`, scope, type },
    });
    expect(response.status).toBe(201);
    return response.body.key;
  }

  async function balance(key: string): Promise<number> {
    return (await api<{ balance: number }>('GET', '/v1/credits', { key })).body.balance;
  }

  /** An SDK client over streamable HTTP, closed after the suite. */
  async function httpClient(key: string, { bearer = false, url = gateway.url } = {}): Promise<Client> {
    const headers: Record<string, string> = bearer ? { Authorization: `Bearer ${key}` } : { 'X-API-Key': key };
    const client = new Client({ name: 'e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }));
    clients.push(client);
    return client;
  }

  /** `node bin/mailguard.js mcp` as an MCP client starts it; its stderr is kept. */
  async function stdioClient(env: Record<string, string>): Promise<{ client: Client; stderr: () => string }> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp'],
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: 'e2e-stdio', version: '1.0.0' });
    // Anything on stdout that is not a protocol message would surface here.
    const protocolErrors: Error[] = [];
    client.onerror = (error) => protocolErrors.push(error);
    await client.connect(transport);
    clients.push(client);
    return {
      client,
      stderr: () => {
        expect(protocolErrors).toEqual([]);
        return stderr;
      },
    };
  }

  async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
    return (await client.callTool({ name, arguments: args })) as CallToolResult;
  }

  /** A successful call's structured content. */
  async function ok<T = Record<string, unknown>>(
    client: Client,
    name: string,
    args: Record<string, unknown> = {},
  ): Promise<T> {
    const result = await call(client, name, args);
    if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
    const [summary, json] = result.content as Array<{ type: string; text: string }>;
    expect(summary.text).not.toContain('\n');
    expect(JSON.parse(json.text)).toEqual(result.structuredContent);
    return result.structuredContent as T;
  }

  /** A refused call: isError, no structured content, the REST error body as its text. */
  async function refused(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolErrorBody> {
    const result = await call(client, name, args);
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    const [content] = result.content as Array<{ type: string; text: string }>;
    return JSON.parse(content.text) as ToolErrorBody;
  }

  type List = {
    id: string;
    status: string;
    total: number;
    processed: number;
    duplicates: number;
    creditsHeld: number;
    counts: Record<string, number>;
  };

  async function settledList(client: Client, id: string): Promise<List> {
    const until = Date.now() + 90_000;
    for (;;) {
      const list = await ok<List>(client, 'list_status', { id });
      if (list.status !== 'queued' && list.status !== 'processing') return list;
      if (Date.now() > until) throw new Error(`list ${id} still ${list.status}`);
      await new Promise((done) => setTimeout(done, 250));
    }
  }

  /** A gauge or counter of the process (its only series, whatever its labels). */
  async function metric(page: string, name: string): Promise<number> {
    const text = await (await fetch(page)).text();
    const line = text.split('\n').find((entry) => entry.startsWith(`${name} `) || entry.startsWith(`${name}{`));
    if (!line) throw new Error(`no metric ${name}`);
    return Number(line.split(' ').pop());
  }

  beforeAll(async () => {
    lab = await startLab(loadScenario());
    database = await createTestDatabase();
    gateway = await startGatewayProcess(gatewayEnv(), workDir());
    if (distributed)
      workers = await Promise.all(WORKER_KINDS.map((kind) => startWorkerProcess(kind, gatewayEnv(), workDir())));
    api = apiClient(gateway.url);
  });

  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
    await Promise.all(workers.map((worker) => worker.stop()));
    await gateway?.stop();
    await database?.drop();
    await lab?.stop();
    if (distributed) await flushRedisPrefix(suitePrefix);
  });

  describe('streamable HTTP at /mcp', () => {
    it('lists the nine tools with zod-made input and output schemas, descriptions and truthful annotations', async () => {
      const { apiKey } = await signup();
      const client = await httpClient(apiKey);
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(TOOL_NAMES);
      const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool])) as Record<string, Tool>;
      for (const tool of tools) {
        expect(tool.inputSchema.type).toBe('object');
        expect(tool.outputSchema?.type).toBe('object');
        expect(tool.description?.length).toBeGreaterThan(100);
        expect(tool.annotations).toMatchObject({
          readOnlyHint: expect.any(Boolean),
          idempotentHint: expect.any(Boolean),
          openWorldHint: expect.any(Boolean),
        });
      }
      expect(byName.verify_emails.inputSchema.properties?.emails).toMatchObject({
        type: 'array',
        maxItems: 100,
        minItems: 1,
      });
      expect(byName.verify_email.inputSchema.required).toEqual(['email']);
      expect(byName.find_email.inputSchema.required).toEqual(['domain']);
      expect(byName.verify_email.outputSchema?.required).toEqual(
        expect.arrayContaining(['email', 'status', 'reason', 'score', 'reachable', 'checks']),
      );
      // Paid checks spend credits: not read-only. Reading the account is.
      for (const name of ['verify_email', 'verify_emails', 'find_email', 'create_list'])
        expect(byName[name].annotations).toMatchObject({
          readOnlyHint: false,
          idempotentHint: false,
          openWorldHint: true,
        });
      for (const name of ['list_status', 'list_results', 'credits'])
        expect(byName[name].annotations).toMatchObject({
          readOnlyHint: true,
          idempotentHint: true,
          openWorldHint: false,
        });
      expect(byName.domain_insight.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: true });
      expect(byName.verify_email.description).toMatch(/1 credit/);
      expect(byName.verify_email.description).toMatch(/verify_emails/);
    });

    it('answers every tool: structured content valid against its output schema plus a one-line summary', async () => {
      const { apiKey } = await signup();
      const client = await httpClient(apiKey);
      await client.listTools(); // the SDK validates structured content against the listed schemas from here on
      const single = await call(client, 'verify_email', { email: 'jane@acme.test' });
      expect(single.structuredContent).toMatchObject({
        email: 'jane@acme.test',
        status: 'valid',
        reason: 'accepted_email',
        reachable: 'safe',
      });
      expect((single.content as Array<{ text: string }>)[0].text).toBe(
        `jane@acme.test: valid (accepted_email), score ${(single.structuredContent as { score: number }).score}; balance 2499 credits`,
      );
      const batch = await ok<{ results: Array<{ email: string; reason: string }> }>(client, 'verify_emails', {
        emails: ['nobody@acme.test', 'jane@acme.test', 'peter@catchall.test'],
      });
      expect(batch.results.map((result) => result.reason)).toEqual(['rejected_email', 'accepted_email', 'catch_all']);
      expect(await ok(client, 'find_email', { firstName: 'John', lastName: 'Doe', domain: 'acme.test' })).toMatchObject(
        { email: 'john.doe@acme.test', pattern: 'first.last' },
      );
      expect(await ok(client, 'find_email', { fullName: 'Zed Quux', domain: 'acme.test' })).toMatchObject({
        email: null,
        result: null,
      });
      expect(await ok(client, 'domain_insight', { domain: 'https://www.acme.test/about' })).toMatchObject({
        domain: 'acme.test',
        catchAll: false,
        mx: [expect.objectContaining({ exchange: expect.any(String) })],
      });
      expect(await ok(client, 'report_outcome', { email: 'jane@acme.test', outcome: 'delivered' })).toEqual({
        accepted: true,
      });
      const list = await ok<List>(client, 'create_list', {
        csv: 'name,email\nJane,jane@acme.test\nNobody,nobody@acme.test\nAgain,JANE@acme.test\n',
        name: 'agents.csv',
      });
      expect(list).toMatchObject({
        id: expect.stringMatching(/^lst_/),
        name: 'agents.csv',
        total: 3,
        duplicates: 1,
        creditsHeld: 2,
      });
      const done = await settledList(client, list.id);
      expect(done).toMatchObject({ status: 'completed', processed: 3, counts: { valid: 2, risky: 0, invalid: 1 } });
      const page = await ok<{
        data: Array<{ row: number; email: string; result: { status: string } }>;
        total: number;
        page: number;
      }>(client, 'list_results', { id: list.id });
      expect(page).toMatchObject({ total: 3, page: 1 });
      expect(page.data.map((row) => [row.row, row.email, row.result.status])).toEqual([
        [1, 'jane@acme.test', 'valid'],
        [2, 'nobody@acme.test', 'invalid'],
        [3, 'JANE@acme.test', 'valid'],
      ]);
      expect(
        (await ok<{ data: unknown[] }>(client, 'list_results', { id: list.id, status: 'invalid' })).data,
      ).toHaveLength(1);
      const rest = await api<Record<string, unknown>>('GET', '/v1/credits', { key: apiKey });
      expect(await ok(client, 'credits')).toEqual(rest.body);
    });

    it('charges, refunds and records usage exactly as the REST calls it mirrors', async () => {
      // The same calls by two accounts, one through MCP and one through REST, after a third has
      // warmed the cache so that both see the same answers.
      const warm = await signup();
      for (const email of ['jane@acme.test', 'nobody@acme.test'])
        await api('GET', `/v1/email-validation/${email}`, { key: warm.apiKey });
      const viaMcp = await signup();
      const viaRest = await signup();
      const client = await httpClient(viaMcp.apiKey);
      const csv = 'email\njane@acme.test\nnobody@acme.test\nbob@blocked.test\njane@acme.test\nnot an address\n';

      await ok(client, 'verify_email', { email: 'jane@acme.test' });
      await ok(client, 'verify_email', { email: 'bob@blocked.test' });
      await ok(client, 'verify_emails', {
        emails: ['nobody@acme.test', 'jane@acme.test', 'JANE@acme.test', 'not-an-address', 'bob@blocked.test'],
      });
      await ok(client, 'find_email', { firstName: 'John', lastName: 'Doe', domain: 'acme.test' });
      await ok(client, 'find_email', { firstName: 'Zed', lastName: 'Quux', domain: 'acme.test' });
      const mcpList = await ok<List>(client, 'create_list', { csv, name: 'same.csv' });
      await settledList(client, mcpList.id);

      await api('GET', '/v1/email-validation/jane@acme.test', { key: viaRest.apiKey });
      await api('GET', '/v1/email-validation/bob@blocked.test', { key: viaRest.apiKey });
      await api('POST', '/v1/email-validation/batch', {
        key: viaRest.apiKey,
        body: {
          emails: ['nobody@acme.test', 'jane@acme.test', 'JANE@acme.test', 'not-an-address', 'bob@blocked.test'],
        },
      });
      await api('GET', '/v1/email-finder?firstName=John&lastName=Doe&domain=acme.test', { key: viaRest.apiKey });
      await api('GET', '/v1/email-finder?firstName=Zed&lastName=Quux&domain=acme.test', { key: viaRest.apiKey });
      const form = new FormData();
      form.append('name', 'same.csv');
      form.append('file', new Blob([csv], { type: 'text/csv' }), 'same.csv');
      const restList = (await (
        await fetch(`${gateway.url}/v1/lists`, { method: 'POST', headers: { 'X-API-Key': viaRest.apiKey }, body: form })
      ).json()) as List;
      await settledList(await httpClient(viaRest.apiKey), restList.id);

      const ledger = async (accountId: string) =>
        (
          await database.query<{ kind: string; delta: number; reason: string; ref: string | null }>(
            'SELECT kind, delta, reason, ref FROM credit_transactions WHERE account_id = $1 ORDER BY id',
            [accountId],
          )
        ).map((row) => ({
          ...row,
          // The same kind of reference (chk_, bat_, fnd_, lst_), not the same id.
          ref: row.ref?.split('_')[0] ?? null,
          reason: row.reason.replace(/lst_\w+/g, 'lst'),
        }));
      const usage = (accountId: string) =>
        database.query(
          'SELECT kind, count(*)::int AS checks, sum(credits)::int AS credits FROM verifications WHERE account_id = $1 GROUP BY kind ORDER BY kind',
          [accountId],
        );
      const mcpLedger = await ledger(viaMcp.account.id);
      expect(mcpLedger.map((row) => row.kind)).toEqual(expect.arrayContaining(['charge', 'refund', 'hold']));
      expect(mcpLedger).toEqual(await ledger(viaRest.account.id));
      expect(await usage(viaMcp.account.id)).toEqual(await usage(viaRest.account.id));
      // A tool call's usage kind is the one of the REST call it mirrors.
      expect((await usage(viaMcp.account.id)).map((row) => row.kind)).toEqual(
        expect.arrayContaining(['batch', 'finder', 'single']),
      );
      expect(await balance(viaMcp.apiKey)).toBe(await balance(viaRest.apiKey));
    });

    it('refuses outside the scope of the mirrored REST route, with its 403 body, and serves what the scope allows', async () => {
      const { apiKey } = await signup();
      const reader = await httpClient(await createKey(apiKey, 'read-only'));
      const lister = await httpClient(await createKey(apiKey, 'lists'));
      const restRefusal = await api('GET', '/v1/email-validation/jane@acme.test', {
        key: await createKey(apiKey, 'read-only'),
      });
      expect(await refused(reader, 'verify_email', { email: 'jane@acme.test' })).toEqual(restRefusal.body);
      expect(await refused(reader, 'verify_emails', { emails: ['jane@acme.test'] })).toMatchObject({
        code: 'forbidden',
      });
      expect(await refused(reader, 'create_list', { csv: 'email\njane@acme.test\n' })).toMatchObject({
        code: 'forbidden',
      });
      expect(await refused(lister, 'find_email', { firstName: 'John', lastName: 'Doe', domain: 'acme.test' })).toEqual({
        error: expect.stringContaining('scope (lists)'),
        code: 'forbidden',
      });
      expect(await refused(lister, 'domain_insight', { domain: 'acme.test' })).toMatchObject({ code: 'forbidden' });
      expect(await ok(reader, 'credits')).toMatchObject({ balance: 2500 });
      const list = await ok<List>(lister, 'create_list', { csv: 'email\nnobody@acme.test\n' });
      expect(await ok(reader, 'list_status', { id: list.id })).toMatchObject({ id: list.id });
      expect(await balance(apiKey)).toBe(2499);
    });

    it('402 as a tool error with the REST message, nothing charged', async () => {
      const { apiKey, account } = await signup();
      const client = await httpClient(apiKey);
      await database.setBalance(account.id, 0);
      const rows = async () =>
        (await database.query('SELECT id FROM credit_transactions WHERE account_id = $1', [account.id])).length;
      const before = await rows();
      const rest = await api('GET', '/v1/email-validation/jane@acme.test', { key: apiKey });
      expect(rest.status).toBe(402);
      expect(await refused(client, 'verify_email', { email: 'jane@acme.test' })).toEqual(rest.body);
      expect(await refused(client, 'verify_emails', { emails: ['jane@acme.test', 'nobody@acme.test'] })).toMatchObject({
        code: 'insufficient_credits',
      });
      expect(
        await refused(client, 'find_email', { firstName: 'John', lastName: 'Doe', domain: 'acme.test' }),
      ).toMatchObject({ code: 'insufficient_credits' });
      expect(await refused(client, 'create_list', { csv: 'email\njane@acme.test\n' })).toMatchObject({
        code: 'insufficient_credits',
      });
      expect(await rows()).toBe(before);
      expect(await ok(client, 'credits')).toMatchObject({ balance: 0 });
    });

    it('429 once REST and MCP together pass 60 a minute for the key, with the seconds to wait; the session lives on', async () => {
      const { apiKey, account } = await signup();
      const client = await httpClient(apiKey);
      for (let i = 0; i < 30; i++) expect((await api('GET', '/v1/credits', { key: apiKey })).status).toBe(200);
      for (let i = 0; i < 30; i++) await ok(client, 'credits');
      const limited = await refused(client, 'verify_email', { email: 'jane@acme.test' });
      expect(limited).toEqual({
        error: expect.stringMatching(/^Rate limit of 60 requests per minute exceeded; retry in \d+ s$/),
        code: 'rate_limited',
        retryAfterSeconds: expect.any(Number),
      });
      expect(limited.retryAfterSeconds).toBeGreaterThan(0);
      const rest = await api('GET', '/v1/credits', { key: apiKey });
      expect(rest.status).toBe(429);
      expect(rest.body.code).toBe('rate_limited');
      // Refused before anything was charged; the same client still talks to the server.
      expect(await database.query('SELECT balance FROM accounts WHERE id = $1', [account.id])).toEqual([
        { balance: 2500 },
      ]);
      expect((await client.listTools()).tools).toHaveLength(9);
      expect(await refused(client, 'credits')).toMatchObject({ code: 'rate_limited' });
    });

    it('401 before any MCP exchange without a key or with a bad one; 403 for a widget key; Bearer keys work', async () => {
      const { apiKey } = await signup();
      const initialize = {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      };
      const post = (headers: Record<string, string>) =>
        api('POST', '/mcp', {
          headers: { accept: 'application/json, text/event-stream', ...headers },
          body: initialize,
        });
      expect(await post({})).toMatchObject({
        status: 401,
        body: { error: expect.stringContaining('Authorization: Bearer'), code: 'unauthorized' },
      });
      expect(await post({ 'X-API-Key': `mg_live_${'x'.repeat(32)}` })).toMatchObject({
        status: 401,
        body: { error: 'Invalid or revoked API key', code: 'unauthorized' },
      });
      expect(await post({ Authorization: 'Bearer nonsense' })).toMatchObject({
        status: 401,
        body: { code: 'unauthorized' },
      });
      expect(await post({ 'X-API-Key': await createKey(apiKey, 'verify', 'widget') })).toMatchObject({
        status: 403,
        body: { code: 'forbidden' },
      });
      expect((await post({ Authorization: `Bearer ${apiKey}` })).status).toBe(200);
      expect((await api('GET', '/mcp', { key: apiKey })).status).toBe(405);
      const client = new Client({ name: 'e2e', version: '1.0.0' });
      await expect(
        client.connect(
          new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), {
            requestInit: { headers: { 'X-API-Key': `mg_live_${'y'.repeat(32)}` } },
          }),
        ),
      ).rejects.toThrow(/401|Invalid or revoked/);
      expect(await ok(await httpClient(apiKey, { bearer: true }), 'credits')).toMatchObject({ balance: 2500 });
    });

    it('throttles key guessing on /mcp as on REST: 429 with Retry-After past 20 unknown keys from one address', async () => {
      const { apiKey } = await signup();
      const guesser = { 'X-Forwarded-For': `203.0.113.${10 + signups}`, accept: 'application/json, text/event-stream' };
      const guess = () =>
        api('POST', '/mcp', {
          key: `mg_live_${randomBytes(16).toString('hex')}`,
          headers: guesser,
          body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        });
      for (let i = 0; i < 20; i++) expect((await guess()).status).toBe(401);
      const throttled = await guess();
      expect(throttled).toMatchObject({
        status: 429,
        body: { error: expect.stringContaining('unknown API keys'), code: 'rate_limited' },
      });
      expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
      // REST counts the same failures, and a valid key from that address is served as ever.
      expect((await api('GET', '/v1/credits', { key: `mg_live_${'q'.repeat(32)}`, headers: guesser })).status).toBe(
        429,
      );
      expect(
        (await api('POST', '/mcp', { key: apiKey, headers: guesser, body: { jsonrpc: '2.0', id: 1, method: 'ping' } }))
          .status,
      ).toBe(200);
    });

    it("answers bad input as tool errors with REST messages, charging nothing; another account's list is not found", async () => {
      const { apiKey } = await signup();
      const other = await signup();
      const client = await httpClient(apiKey);
      expect(await refused(client, 'verify_email', { email: `${'a'.repeat(1990)}@acme.test` })).toEqual({
        error: 'The address is longer than 1024 characters',
        code: 'bad_request',
      });
      expect(
        await refused(client, 'verify_emails', { emails: Array.from({ length: 101 }, (_, n) => `user${n}@acme.test`) }),
      ).toEqual({ error: 'emails may hold at most 100 addresses', code: 'bad_request' });
      expect(await refused(client, 'verify_emails', { emails: 'jane@acme.test' })).toMatchObject({
        code: 'bad_request',
      });
      expect(await refused(client, 'verify_email', {})).toEqual({ error: 'email is required', code: 'bad_request' });
      const big = `email\n${'someone.with.a.long.name@acme.test\n'.repeat(Math.ceil((6 * 1024 * 1024) / 35))}`;
      expect(await refused(client, 'create_list', { csv: big })).toMatchObject({
        error: expect.stringContaining('larger than 5 MB'),
        code: 'payload_too_large',
      });
      expect(await refused(client, 'create_list', { csv: 'name\nJane\n', emailColumn: 'mail' })).toMatchObject({
        code: 'bad_request',
      });
      expect(await refused(client, 'find_email', { firstName: 'John', domain: 'acme.test' })).toMatchObject({
        code: 'bad_request',
      });
      expect(await refused(client, 'report_outcome', { email: 'jane@acme.test', outcome: 'opened' })).toEqual({
        error: 'outcome must be delivered or bounced',
        code: 'bad_request',
      });
      expect(await refused(client, 'list_results', { id: 'lst_x', page: 0 })).toMatchObject({ code: 'bad_request' });
      const theirs = await ok<List>(await httpClient(other.apiKey), 'create_list', {
        csv: 'email\nnobody@acme.test\n',
      });
      expect(await refused(client, 'list_status', { id: theirs.id })).toEqual({
        error: `No list ${theirs.id}`,
        code: 'not_found',
      });
      expect(await refused(client, 'list_results', { id: theirs.id })).toEqual({
        error: `No list ${theirs.id}`,
        code: 'not_found',
      });
      expect(await refused(client, 'list_status', { id: 'lst_nothing' })).toMatchObject({ code: 'not_found' });
      await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/Unknown tool/);
      expect(await balance(apiKey)).toBe(2500);
    });
    it('knows every argument of every tool that takes any', () => {
      const shape = (name: ToolName) => Object.keys(TOOLS[name].input.shape).sort();
      expect(Object.keys(TOOL_ARGUMENTS)).toEqual(TOOLS_OFFERED.filter((name) => shape(name).length > 0));
      for (const [name, args] of Object.entries(TOOL_ARGUMENTS))
        expect(Object.keys(args).sort()).toEqual(shape(name as ToolName));
    });

    it.each(Object.keys(TOOL_ARGUMENTS))(
      '%s: each argument null, of another type, or left out when required is a bad_request tool error naming it',
      async (name) => {
        const { apiKey } = await signup();
        const client = await httpClient(apiKey);
        const shape = TOOLS[name as ToolName].input.shape as Record<
          string,
          { safeParse(value: unknown): { success: boolean } }
        >;
        for (const { path, value } of fields(TOOL_ARGUMENTS[name])) {
          const required = path.length === 1 && !shape[path[0]].safeParse(undefined).success;
          const field = path.findLast((part) => !/^\d+$/.test(part)) as string;
          for (const bad of [null, wrongType(value), ...(required ? [undefined] : [])])
            expect(await refused(client, name, withField(TOOL_ARGUMENTS[name], path, bad))).toEqual({
              error: expect.stringContaining(field),
              code: 'bad_request',
            });
        }
        expect(await balance(apiKey)).toBe(2500);
      },
    );
  });

  describe('stdio (`mailguard mcp`)', () => {
    it('relays to the service with MAILGUARD_API_URL and MAILGUARD_API_KEY: the same tools, metered, refused alike', async () => {
      const { apiKey } = await signup();
      const { client, stderr } = await stdioClient({
        MAILGUARD_API_URL: `${gateway.url}/v1`,
        MAILGUARD_API_KEY: apiKey,
      });
      const viaHttp = await (await httpClient(apiKey)).listTools();
      expect((await client.listTools()).tools).toEqual(viaHttp.tools);
      expect(await ok(client, 'verify_email', { email: 'jane@acme.test' })).toMatchObject({ status: 'valid' });
      expect(await balance(apiKey)).toBe(2499);
      expect(
        await refused(client, 'verify_emails', { emails: Array.from({ length: 101 }, () => 'jane@acme.test') }),
      ).toMatchObject({ code: 'bad_request' });
      const reader = await stdioClient({
        MAILGUARD_API_URL: gateway.url,
        MAILGUARD_API_KEY: await createKey(apiKey, 'read-only'),
      });
      expect(await refused(reader.client, 'verify_email', { email: 'jane@acme.test' })).toMatchObject({
        code: 'forbidden',
      });
      expect(stderr()).toContain('relaying stdio to');
      await expect(
        stdioClient({ MAILGUARD_API_URL: gateway.url, MAILGUARD_API_KEY: `mg_live_${'z'.repeat(32)}` }),
      ).rejects.toThrow(/401|Invalid or revoked/);
    });

    if (!distributed) {
      it('runs the engine in its own process without MAILGUARD_API_URL: checks and finder tools, unmetered, logs on stderr only', async () => {
        const { client, stderr } = await stdioClient({ ...lab.env, SMTP_HELO_NAME: E2E_CLUSTER_ENV.SMTP_HELO_NAME });
        expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual([
          'verify_email',
          'verify_emails',
          'find_email',
          'domain_insight',
        ]);
        expect(await ok(client, 'verify_email', { email: 'jane@acme.test' })).toMatchObject({
          status: 'valid',
          reason: 'accepted_email',
        });
        const batch = await ok<{ results: Array<{ reason: string }> }>(client, 'verify_emails', {
          emails: ['nobody@acme.test', 'peter@catchall.test'],
        });
        expect(batch.results.map((result) => result.reason)).toEqual(['rejected_email', 'catch_all']);
        expect(
          await ok(client, 'find_email', { firstName: 'John', lastName: 'Doe', domain: 'acme.test' }),
        ).toMatchObject({ email: 'john.doe@acme.test' });
        expect(await ok(client, 'domain_insight', { domain: 'catchall.test' })).toMatchObject({ catchAll: true });
        expect(await refused(client, 'verify_email', { email: 'x'.repeat(2000) })).toMatchObject({
          code: 'bad_request',
        });
        expect(stderr()).toContain('unmetered');
      });
    }
  });

  describe('sessions and memory', () => {
    it('serves 200 sequential calls and 20 concurrent clients and ends with every transport closed', async () => {
      // A gateway of its own, with the rate limit lifted, so that only MCP traffic is measured.
      const soak = await startGatewayProcess(gatewayEnv({ RATE_LIMIT_PER_MINUTE: '100000' }), workDir());
      try {
        const { apiKey, account } = await signup();
        const client = await httpClient(apiKey, { url: soak.url });
        const round = async (target: Client, n: number) => {
          for (let i = 0; i < n; i++) {
            if (i % 20 === 0)
              expect(await ok(target, 'verify_email', { email: 'jane@acme.test' })).toMatchObject({ status: 'valid' });
            else expect(await ok(target, 'credits')).toMatchObject({ currency: 'credits' });
          }
        };
        await round(client, 200);
        await Promise.all(
          Array.from({ length: 20 }, async () => {
            const concurrent = await httpClient(apiKey, { url: soak.url });
            await concurrent.listTools();
            await round(concurrent, 10);
            await concurrent.close();
          }),
        );
        // Every request's server and transport closed (the gauge falls when a transport's onclose runs).
        expect(await metric(soak.metrics, 'mailguard_mcp_transports_open')).toBe(0);
        expect(await metric(soak.metrics, 'mailguard_mcp_transports_opened_total')).toBeGreaterThanOrEqual(
          200 + 20 * 13,
        );
        // From the database: with Redis, the main gateway's 60-a-minute limit sees this key's window too.
        expect(await database.query('SELECT balance FROM accounts WHERE id = $1', [account.id])).toEqual([
          { balance: 2500 - 10 - 20 },
        ]);
      } finally {
        await soak.stop();
      }
    });
  });
}
