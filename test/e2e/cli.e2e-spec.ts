import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse } from 'csv-parse/sync';
import { startLab, type Lab } from '../lab';
import { loadScenario, type Scenario } from '../lab/scenario';
import { apiClient } from '../support/api-client';
import { E2E_CLUSTER_ENV } from '../support/cluster-env';
import { startGatewayProcess, type RunningProcess } from '../support/processes';
import { createTestDatabase, type TestDatabase } from '../support/services';

const BIN = resolve(__dirname, '../../bin/mailguard.js');
const VERSION = (JSON.parse(readFileSync(resolve(__dirname, '../../package.json'), 'utf8')) as { version: string })
  .version;
const OUR_COLUMNS = [
  'status',
  'reason',
  'confidence',
  'reachable',
  'is_free',
  'is_role',
  'is_disposable',
  'is_catch_all',
  'suggestion',
  'score',
  'sub_status',
];
/** Domains for the 10,000-row run: a server each, without TLS, so that the run measures the CLI, not handshakes. */
const BULK_DOMAINS = Array.from({ length: 8 }, (_, index) => `bulk${index}.test`);

interface Result {
  email: string;
  status: string;
  reason: string;
  subStatus: string | null;
  score: number;
}

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

jest.setTimeout(180_000);

let lab: Lab;
const dir = mkdtempSync(join(tmpdir(), 'mailguard-cli-'));

/** The lab's world plus the bulk domains. */
function scenario(): Scenario {
  const base = loadScenario();
  const servers = {
    ...base.servers,
    ...Object.fromEntries(BULK_DOMAINS.map((domain) => [`mx.${domain}`, { tls: 'none' as const }])),
  };
  const bulk = BULK_DOMAINS.map((domain) => [
    domain,
    { mx: [{ host: `mx.${domain}`, priority: 10 }], mailboxes: { jane: 'ok' } },
  ]);
  return { ...base, servers, domains: { ...base.domains, ...Object.fromEntries(bulk) } };
}

function env(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? '', ...lab.env, ...extra };
}

/** Runs the built binary (`npm run build` first), optionally feeding stdin. */
function cli(args: string[], options: { env?: Record<string, string>; input?: string } = {}): Promise<Outcome> {
  const child = spawn(process.execPath, [BIN, ...args], { env: options.env ?? env() });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(options.input ?? '');
  return new Promise((done) => child.once('close', (code) => done({ code, stdout, stderr })));
}

/** Runs a shell command line on a pseudo-terminal (util-linux `script`): what the terminal showed. */
function onTerminal(command: string, extraEnv: Record<string, string> = {}): Promise<Outcome> {
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    env: { ...env(extraEnv), TERM: 'xterm' },
    cwd: dir,
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stdin.end();
  return new Promise((done) => child.once('close', (code) => done({ code, stdout, stderr: '' })));
}

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function csvRows(text: string, delimiter = ','): string[][] {
  return parse(text, { delimiter }) as string[][];
}

beforeAll(async () => {
  lab = await startLab(scenario());
});

afterAll(() => lab.stop());

describe('npx mailguard: usage', () => {
  it.each([
    [['verify', '--bogus', 'a@acme.test'], /Unknown option '--bogus'/],
    [['verify', 'a@acme.test', '--format', 'xml'], /--format takes text, json, jsonl, csv \(got "xml"\)/],
    [['verify', 'a@acme.test', '--file'], /Option '--file <value>' argument missing/],
    [['verify', 'a@acme.test', '--concurrency', 'many'], /--concurrency takes a whole number from 1 to 500/],
    [['verify', 'a@acme.test', '--fail-on', 'valid'], /--fail-on takes invalid or risky/],
    [['verify'], /no address given/],
    [['verify', 'a@acme.test', '--file', 'x.csv'], /one of them/],
    [['verify', 'a@acme.test', '--remote', 'http://127.0.0.1:9'], /MAILGUARD_API_KEY/],
    [['find', '--first', 'John', '--domain', 'acme.test'], /--first and --last, or --full/],
    [
      ['find', '--first', 'John', '--last', 'Doe', '--domain', 'acme.test', '--format', 'csv'],
      /--format takes text, json/,
    ],
    [['domain'], /domain takes one domain name/],
    [['frobnicate'], /unknown command "frobnicate"/],
    [[], /no command given/],
  ])('%j exits 2 with a message on stderr and nothing on stdout', async (args, message) => {
    const { code, stdout, stderr } = await cli(args);
    expect({ code, stdout }).toEqual({ code: 2, stdout: '' });
    expect(stderr).toMatch(message);
    expect(stderr).toContain('mailguard --help');
  });

  it.each([
    ['a missing file', 'missing.csv', /cannot read .*missing\.csv: there is no such file$/m],
    ['a folder', '.', /cannot read .*: it is a folder; give a CSV, or a file of one address per line$/m],
  ])('exits 2 on %s, saying why in words', async (_what, name, message) => {
    const { code, stdout, stderr } = await cli(['verify', '--file', join(dir, name)]);
    expect({ code, stdout }).toEqual({ code: 2, stdout: '' });
    expect(stderr).toMatch(message);
    expect(stderr).not.toMatch(/ENOENT|EISDIR/);
  });

  it('warns when the input holds no address', async () => {
    const empty = join(dir, 'empty.txt');
    writeFileSync(empty, '\n\n');
    const { code, stderr } = await cli(['verify', '--file', empty]);
    expect(code).toBe(0);
    expect(stderr).toMatch(/empty\.txt holds no address to check/);
  });

  it('speaks of --email-column when a CSV has no email column', async () => {
    const csv = join(dir, 'no-email.csv');
    writeFileSync(csv, 'name,city\nJane,Paris\n');
    const { code, stderr } = await cli(['verify', '--file', csv]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/No email column: name one with --email-column, or call a column "email"/);
  });

  it('refuses bad configuration with exit code 2 (the existing check)', async () => {
    const { code, stderr } = await cli(['verify', 'a@b.test'], {
      env: { PATH: process.env.PATH ?? '', DNS_SERVERS: 'nonsense' },
    });
    expect(code).toBe(2);
    expect(stderr).toContain('DNS_SERVERS');
  });

  it('prints --help and --version on stdout with status 0', async () => {
    const help = await cli(['--help']);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    for (const word of [
      'verify',
      'find',
      'domain',
      'mcp',
      '--file',
      '--format',
      '--concurrency',
      '--remote',
      '--fail-on',
      'MAILGUARD_API_KEY',
    ])
      expect(help.stdout).toContain(word);
    expect(await cli(['verify', '--help'])).toEqual({ ...help });
    expect(await cli(['--version'])).toEqual({ code: 0, stdout: `mailguard ${VERSION}\n`, stderr: '' });
  });

  it('takes an address that starts with a dash only after --', async () => {
    const { code, stdout } = await cli(['verify', '--format', 'jsonl', '--', '-jane@acme.test', '-']);
    expect(code).toBe(0);
    expect(
      stdout
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as Result).email),
    ).toEqual(['-jane@acme.test', '-']);
  });
});

describe('npx mailguard verify', () => {
  it('prints one JSON array of results in input order, honouring the docs/configuration.md variables', async () => {
    const emails = ['nobody@acme.test', 'john.doe@acme.test', 'not-an-address', 'x@nullmx.test'];
    const { stdout } = await cli(['verify', ...emails, '--json'], {
      env: env({ SMTP_HELO_NAME: 'cli.mailguard.test' }),
    });
    const results = JSON.parse(stdout) as Array<{ email: string; reason: string }>;
    expect(results.map((r) => [r.email, r.reason])).toEqual([
      ['nobody@acme.test', 'rejected_email'],
      ['john.doe@acme.test', 'accepted_email'],
      ['not-an-address', 'invalid_syntax'],
      ['x@nullmx.test', 'no_mx'],
    ]);
    expect(lab.stats('mx1.acme.test').commands).toContain('EHLO cli.mailguard.test');
  });

  it('keeps a session open between addresses at one host, and says goodbye to it before exiting', async () => {
    const before = lab.stats('mx1.acme.test');
    const [sessions, commands] = [before.sessions, before.commands.length];
    const emails = ['john.doe@acme.test', 'nobody@acme.test', 'jane@acme.test'];
    const { stdout } = await cli(['verify', ...emails, '--json', '--concurrency', '1'], {
      env: env({ SMTP_HELO_NAME: 'quit.mailguard.test' }),
    });
    expect((JSON.parse(stdout) as unknown[]).length).toBe(3);
    const after = lab.stats('mx1.acme.test');
    const said = after.commands.slice(commands);
    expect(said.filter((command) => command.startsWith('RCPT TO:<') && !command.includes('mgv'))).toHaveLength(3);
    // Fewer sessions than addresses, and each ended with QUIT rather than a dropped connection.
    expect(after.sessions - sessions).toBeLessThan(3);
    expect(said.filter((command) => command === 'QUIT')).toHaveLength(after.sessions - sessions);
  });

  it('prints a line per address without --json, subStatus beside the reason', async () => {
    const { stdout } = await cli(['verify', 'jane@acme.test']);
    expect(stdout.trim()).toMatch(/^jane@acme\.test {2}valid {2}accepted_email {2}score \d+$/);
    const invalid = await cli(['verify', 'nobody@acme.test', 'x@nullmx.test']);
    expect(invalid.stdout).toMatch(
      /^nobody@acme\.test {2}invalid {2}rejected_email \(no_such_user\) {2}score \d+\nx@nullmx\.test {2}invalid {2}no_mx \(null_mx\) {2}score \d+\n$/,
    );
  });

  it('gives the same results in each format: json (one array), jsonl (a line each, input order), csv, text', async () => {
    const emails = ['peter@catchall.test', 'nobody@acme.test', 'jane@acme.test', 'a@@b', 'x@nullmx.test'];
    const outputs = await Promise.all(
      ['json', 'jsonl', 'csv', 'text'].map((format) => cli(['verify', ...emails, '--format', format])),
    );
    for (const { code, stderr } of outputs) expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const [json, jsonl, csv, text] = outputs.map((outcome) => outcome.stdout);
    const array = JSON.parse(json) as Result[];
    expect(json).toBe(`${JSON.stringify(array, null, 2)}\n`);
    const lines = jsonl
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Result);
    const verdicts = (results: Result[]) => results.map((r) => [r.email, r.status, r.reason, r.subStatus]);
    expect(verdicts(lines)).toEqual(verdicts(array));
    expect(verdicts(array)).toEqual([
      ['peter@catchall.test', 'risky', 'catch_all', null],
      ['nobody@acme.test', 'invalid', 'rejected_email', 'no_such_user'],
      ['jane@acme.test', 'valid', 'accepted_email', null],
      ['a@@b', 'invalid', 'invalid_syntax', expect.any(String)],
      ['x@nullmx.test', 'invalid', 'no_mx', 'null_mx'],
    ]);
    const [header, ...rows] = csvRows(csv);
    expect(header).toEqual(['email', ...OUR_COLUMNS]);
    expect(rows.map((row) => [row[0], row[1], row[2], row[11] || null])).toEqual(verdicts(array));
    expect(
      text
        .trimEnd()
        .split('\n')
        .map((line) => line.split('  ').slice(0, 2)),
    ).toEqual(array.map((r) => [r.email, r.status]));
  });

  it('reads addresses from stdin with -: one per line, or a CSV', async () => {
    const plain = await cli(['verify', '-', '--format', 'jsonl'], {
      input: '\uFEFFjane@acme.test\r\n\r\nnobody@acme.test\n  x@nullmx.test\n',
    });
    expect(plain.code).toBe(0);
    expect(
      plain.stdout
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as Result).email),
    ).toEqual(['jane@acme.test', 'nobody@acme.test', 'x@nullmx.test']);
    const csv = await cli(['verify', '--file', '-', '--format', 'csv'], { input: 'name,email\nJane,jane@acme.test\n' });
    expect(csvRows(csv.stdout)).toEqual([
      ['name', 'email', ...OUR_COLUMNS],
      [
        'Jane',
        'jane@acme.test',
        'valid',
        'accepted_email',
        '',
        'safe',
        'false',
        'false',
        'false',
        'false',
        '',
        expect.stringMatching(/^\d+$/),
        '',
      ],
    ]);
  });

  it('reads --file as one address per line', async () => {
    const path = file('plain.txt', 'jane@acme.test\nnobody@acme.test\n');
    const { code, stdout } = await cli(['verify', '--file', path]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^jane@acme\.test {2}valid .*\nnobody@acme\.test {2}invalid .*\n$/);
  });

  it('reads a CSV as the API does: the customer columns kept, ours appended (mailguard_<name> when taken), delimiter kept', async () => {
    const path = file(
      'leads.csv',
      'id;Full name;E-Mail;status\n1;"Doe; Jane";jane@acme.test;lead\n2;Nobody;nobody@acme.test;customer\n3;Nothing;;x\n',
    );
    const { code, stdout } = await cli(['verify', '--file', path, '--format', 'csv']);
    expect(code).toBe(0);
    const [header, ...rows] = csvRows(stdout, ';');
    expect(header).toEqual(['id', 'Full name', 'E-Mail', 'status', 'mailguard_status', ...OUR_COLUMNS.slice(1)]);
    expect(rows.map((row) => row.slice(0, 6))).toEqual([
      ['1', 'Doe; Jane', 'jane@acme.test', 'lead', 'valid', 'accepted_email'],
      ['2', 'Nobody', 'nobody@acme.test', 'customer', 'invalid', 'rejected_email'],
      ['3', 'Nothing', '', 'x', 'invalid', 'invalid_syntax'],
    ]);
    expect(rows.map((row) => row[row.length - 1])).toEqual(['', 'no_such_user', expect.any(String)]);
    const named = file('named.csv', 'work,private\njane@acme.test,nobody@acme.test\n');
    const chosen = await cli(['verify', '--file', named, '--email-column', 'private', '--format', 'jsonl']);
    expect((JSON.parse(chosen.stdout) as Result).email).toBe('nobody@acme.test');
    const unknown = await cli(['verify', '--file', named, '--email-column', 'nope']);
    expect(unknown).toMatchObject({ code: 2, stdout: '', stderr: expect.stringContaining('"nope" is not a column') });
  });

  it('exits 1 with --fail-on when an address is at or below that verdict, 0 otherwise', async () => {
    const risky = ['jane@acme.test', 'peter@catchall.test'];
    expect((await cli(['verify', ...risky, '--fail-on', 'invalid'])).code).toBe(0);
    expect((await cli(['verify', ...risky, '--fail-on', 'risky'])).code).toBe(1);
    expect((await cli(['verify', 'jane@acme.test', '--fail-on', 'risky'])).code).toBe(0);
    const failed = await cli([
      'verify',
      'jane@acme.test',
      'nobody@acme.test',
      '--fail-on',
      'invalid',
      '--format',
      'jsonl',
    ]);
    expect(failed.code).toBe(1);
    // Every result is still printed.
    expect(failed.stdout.trim().split('\n')).toHaveLength(2);
  });

  it('draws a progress bar with an ETA on a terminal, on stderr only', async () => {
    const path = file('twelve.txt', Array.from({ length: 12 }, (_, index) => `p${index}@nullmx.test\n`).join(''));
    const shown = await onTerminal(`node ${BIN} verify --file ${path} --format jsonl > bar.jsonl`);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/\r\[#{30}\] 12\/12 100% .*done in \d+s/);
    const written = readFileSync(join(dir, 'bar.jsonl'), 'utf8').trim().split('\n');
    expect(written.map((line) => (JSON.parse(line) as Result).reason)).toEqual(Array(12).fill('no_mx'));
    // Not a terminal: nothing at all on stderr.
    expect(await cli(['verify', '--file', path, '--format', 'jsonl'])).toMatchObject({ code: 0, stderr: '' });
  });
});

describe('npx mailguard find and domain', () => {
  it('finds an address: text and the API JSON', async () => {
    const text = await cli(['find', '--first', 'John', '--last', 'Doe', '--domain', 'acme.test']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      /^john\.doe@acme\.test {2}confidence \d+ {2}pattern first\.last\n {2}john\.doe@acme\.test {2}valid {2}accepted_email {2}score \d+\n/,
    );
    const json = await cli([
      'find',
      '--full',
      'John Doe',
      '--domain',
      'https://www.acme.test/about',
      '--format',
      'json',
    ]);
    expect(JSON.parse(json.stdout)).toMatchObject({
      email: 'john.doe@acme.test',
      pattern: 'first.last',
      result: { status: 'valid', subStatus: null },
    });
    const nobody = await cli(['find', '--first', 'Zed', '--last', 'Nobody', '--domain', 'nullmx.test']);
    expect(nobody).toEqual({ code: 0, stdout: 'no address found\n', stderr: '' });
  });

  it('describes a domain: text and the API JSON', async () => {
    const text = await cli(['domain', 'catchall.test']);
    expect(text).toMatchObject({ code: 0, stderr: '' });
    expect(text.stdout).toMatch(/^domain {6}catchall\.test\ncatch-all {3}yes\n.*\nmx {10}5 mx\.catchall\.test\n$/s);
    const json = await cli(['domain', 'acme.test', '--format', 'json']);
    expect(JSON.parse(json.stdout)).toMatchObject({
      domain: 'acme.test',
      catchAll: false,
      mx: [{ exchange: 'mx1.acme.test', priority: 10 }],
    });
    expect(await cli(['domain', '-nope'])).toMatchObject({ code: 2 });
  });
});

describe('npx mailguard --remote', () => {
  let database: TestDatabase;
  let gateway: RunningProcess;
  let key: string;
  let proxy: Server;
  let proxyUrl: string;
  const batchCalls: Array<{ at: number; status: number }> = [];
  let refuseNextBatch = false;

  beforeAll(async () => {
    database = await createTestDatabase();
    gateway = await startGatewayProcess(
      {
        ...lab.env,
        DATABASE_URL: database.url,
        SMTP_HELO_NAME: E2E_CLUSTER_ENV.SMTP_HELO_NAME,
        SMTP_TIMEOUT_MS: E2E_CLUSTER_ENV.SMTP_TIMEOUT_MS,
      },
      mkdtempSync(join(tmpdir(), 'mailguard-cli-gw-')),
    );
    const signup = await apiClient(gateway.url)<{ apiKey: string }>('POST', '/v1/accounts', {
      body: { email: `cli.${randomBytes(3).toString('hex')}@catchall.test` },
    });
    key = signup.body.apiKey;
    // In front of the gateway: passes every request on, but answers one batch call with a 429 when told to.
    proxy = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const isBatch = request.url === '/v1/email-validation/batch';
        if (isBatch && refuseNextBatch) {
          refuseNextBatch = false;
          batchCalls.push({ at: Date.now(), status: 429 });
          response.writeHead(429, { 'Content-Type': 'application/json', 'Retry-After': '2' });
          response.end(
            JSON.stringify({
              error: 'Rate limit of 60 requests per minute exceeded; retry in 2 s',
              code: 'rate_limited',
            }),
          );
          return;
        }
        const headers = Object.fromEntries(
          Object.entries(request.headers).filter(
            (entry): entry is [string, string] => typeof entry[1] === 'string' && entry[0] !== 'host',
          ),
        );
        void fetch(`${gateway.url}${request.url}`, {
          method: request.method,
          headers,
          body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
        }).then(async (answer) => {
          if (isBatch) batchCalls.push({ at: Date.now(), status: answer.status });
          response.writeHead(answer.status, {
            'Content-Type': answer.headers.get('content-type') ?? 'application/json',
          });
          response.end(Buffer.from(await answer.arrayBuffer()));
        });
      });
    });
    await new Promise<void>((listening) => proxy.listen(0, '127.0.0.1', listening));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((closed) => proxy?.close(closed));
    await gateway?.stop();
    await database?.drop();
  });

  const remote = (args: string[], apiKey = key) =>
    cli([...args, '--remote', proxyUrl], { env: { PATH: process.env.PATH ?? '', MAILGUARD_API_KEY: apiKey } });

  it('verifies through the REST batch call, metered, with the same verdicts as the engine here', async () => {
    const api = apiClient(gateway.url);
    const before = (await api<{ balance: number }>('GET', '/v1/credits', { key })).body.balance;
    const emails = Array.from({ length: 150 }, (_, index) =>
      index % 3 === 0
        ? `p${index}@nullmx.test`
        : index % 3 === 1
          ? `p${index}@catchall.test`
          : `nobody${index}@acme.test`,
    );
    const [there, here] = await Promise.all([
      remote(['verify', ...emails, '--format', 'jsonl']),
      cli(['verify', ...emails, '--format', 'jsonl']),
    ]);
    expect(there).toMatchObject({ code: 0, stderr: '' });
    const verdicts = (text: string) =>
      text
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Result)
        .map((r) => [r.email, r.status, r.reason, r.subStatus]);
    expect(verdicts(there.stdout)).toEqual(verdicts(here.stdout));
    // Two batch calls (100 + 50): 150 checks, none unknown, so 150 credits.
    const after = (await api<{ balance: number }>('GET', '/v1/credits', { key })).body.balance;
    expect(before - after).toBe(150);
  });

  it('waits for Retry-After on a 429 and sends the call again', async () => {
    batchCalls.length = 0;
    refuseNextBatch = true;
    const { code, stdout, stderr } = await remote([
      'verify',
      'jane@acme.test',
      'nobody@acme.test',
      '--format',
      'jsonl',
    ]);
    expect(code).toBe(0);
    expect(
      stdout
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as Result).reason),
    ).toEqual(['accepted_email', 'rejected_email']);
    expect(stderr).toContain('429 from the service: waiting 2 s');
    expect(batchCalls.map((call) => call.status)).toEqual([429, 200]);
    expect(batchCalls[1].at - batchCalls[0].at).toBeGreaterThanOrEqual(2_000);
  });

  it('finds and describes through the finder calls; refusals are the service’s, with their status', async () => {
    const found = await remote([
      'find',
      '--first',
      'John',
      '--last',
      'Doe',
      '--domain',
      'acme.test',
      '--format',
      'json',
    ]);
    expect(JSON.parse(found.stdout)).toMatchObject({ email: 'john.doe@acme.test', result: { subStatus: null } });
    const domain = await remote(['domain', 'catchall.test', '--format', 'json']);
    expect(JSON.parse(domain.stdout)).toMatchObject({ domain: 'catchall.test', catchAll: true });
    const unknownKey = await remote(['verify', 'jane@acme.test'], `mg_live_${'z'.repeat(32)}`);
    expect(unknownKey).toMatchObject({
      code: 2,
      stdout: '',
      stderr: expect.stringContaining('the service answered 401'),
    });
  });
});

describe('npx mailguard verify --file leads.csv --format csv (10,000 rows)', () => {
  it('writes every row, in order, with the columns of the list download, and shows progress on a terminal', async () => {
    const rows = Array.from({ length: 10_000 }, (_, index) => {
      // One row in five is probed over SMTP; the others are settled by DNS or syntax.
      const email =
        index % 5 === 0
          ? `${index % 2 === 0 ? 'jane' : `x${index}`}@${BULK_DOMAINS[index % BULK_DOMAINS.length]}`
          : index % 5 === 1
            ? `bad address ${index}`
            : `p${index}@nullmx.test`;
      return `${index},"Person, ${index}",${email}\n`;
    });
    file('leads.csv', `id,name,email\n${rows.join('')}`);
    const shown = await onTerminal(`node ${BIN} verify --file leads.csv --format csv --concurrency 64 > out.csv`);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/10000\/10000 100% .*done in/);
    expect(shown.stdout).toMatch(/ETA \d/);
    const [header, ...out] = csvRows(readFileSync(join(dir, 'out.csv'), 'utf8'));
    expect(header).toEqual(['id', 'name', 'email', ...OUR_COLUMNS]);
    expect(out).toHaveLength(10_000);
    expect(out.map((row) => row[0])).toEqual(Array.from({ length: 10_000 }, (_, index) => String(index)));
    expect(out[0].slice(3, 5)).toEqual(['valid', 'accepted_email']);
    expect(out[5].slice(3, 5)).toEqual(['invalid', 'rejected_email']);
    expect(out[1].slice(3, 5)).toEqual(['invalid', 'invalid_syntax']);
    expect(out[2].slice(3, 5)).toEqual(['invalid', 'no_mx']);
    expect(new Set(out.map((row) => row.length))).toEqual(new Set([3 + OUR_COLUMNS.length]));
  });
});
