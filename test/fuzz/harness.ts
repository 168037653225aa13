import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { Pool } from 'pg';
import { startLab, type Lab } from '../lab';
import { loadScenario } from '../lab/scenario';
import { holdings, startGatewayProcess, type RunningProcess } from '../support/processes';
import { createTestDatabase, type TestDatabase } from '../support/services';
import { regressionCorpus } from './corpus';
import { hostileAddress, hostileCase, type FuzzCase, type Surface } from './generators';
import { rawRequest, type RawResponse } from './http';
import { Random } from './random';

/**
 * The fuzz of issue 15: hostile inputs from a seeded generator (and the regression corpus) sent
 * through every public surface of a gateway process checking addresses in the mail lab, and
 * through the CLI. Every answer is judged as it comes; the lab's SMTP sockets, the gateway's log
 * and its temporary files at the end.
 */
export interface FuzzOptions {
  inputs: number;
  seed: number;
  /** Requests in flight at once (one lane per account, each lane one request at a time). */
  lanes?: number;
  deadlineMs?: number;
  log?: (line: string) => void;
}

export interface FuzzFailure {
  kind: string;
  surface: Surface;
  request: string;
  detail: string;
}

export interface FuzzReport {
  inputs: number;
  seconds: number;
  bySurface: Record<string, { inputs: number; statuses: Record<string, number> }>;
  statuses: Record<string, number>;
  /** Answers with a keyed lane's own key refused before any handler ran (401 for its valid key, 429). */
  stoppedAtTheDoor: number;
  latency: { p50: number; p99: number; max: number };
  smtp: { commands: number; violations: string[] };
  /** What the gateway held once the run had settled: upload folders still staged, descriptors before and after. */
  held: { stagedUploads: number; descriptors: { before: number; after: number } };
  failures: FuzzFailure[];
  failureCounts: Record<string, number>;
  /** Error messages by surface (digits folded), to see which doors the inputs stop at. */
  refusals: Record<string, Record<string, number>>;
  figures: string;
}

interface Lane {
  accountId: string;
  keys: string[];
  /** The id of one of `keys`, for the paths that name one. */
  keyId: string;
  widgetKey: string;
  turn: number;
}

const DIST = __dirname.includes(`${sep}dist${sep}`) ? resolve(__dirname, '../..') : resolve(__dirname, '../../dist');
const CLI = resolve(DIST, '../bin/mailguard.js');
/** Every key of a lane is limited to 60 requests a minute (docs/api.md#authentication): a lane spreads its requests over this many. */
const KEYS_PER_LANE = 60;
const BALANCE = 10_000_000;
/** The share of inputs that are addresses given to the CLI. */
const CLI_SHARE = 0.02;
const CLI_BATCH = 50;
/** What an SMTP client may say: anything else on a lab socket was injected. */
const SMTP_COMMAND =
  /^(EHLO|HELO) [^\s<>]+$|^MAIL FROM:<[^\s<>]*>( [A-Z0-9=.-]+)*$|^RCPT TO:<("([^"\\]|\\.)*"|[^\s<>"]+)@[^\s<>"]+>$|^(RSET|QUIT|STARTTLS|NOOP)$/;
const KEEP_FAILURES = 40;

function describe(request: FuzzCase): string {
  const body = request.body.subarray(0, 160).toString('utf8');
  return JSON.stringify(
    `${request.method} ${request.path.slice(0, 200)} ${request.headers.map(([n, v]) => `${n}: ${v.slice(0, 60)}`).join(' | ')} ${body}`,
  );
}

/**
 * The code of a refusal: of REST's error body, or of the one an MCP tool error carries as its text;
 * null when the answer is no refusal.
 */
function refusalCode(kind: 'http' | 'mcp', text: string): string | null {
  try {
    if (kind === 'http') return (JSON.parse(text) as { code?: string }).code ?? null;
    const { result } = JSON.parse(text) as { result?: { isError?: boolean; content?: Array<{ text?: string }> } };
    if (!result?.isError) return null;
    return (JSON.parse(result.content?.[0]?.text ?? '') as { code?: string }).code ?? null;
  } catch {
    return null;
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
}

export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const log = options.log ?? (() => undefined);
  const deadlineMs = options.deadlineMs ?? 4_000;
  const laneCount = Math.max(1, options.lanes ?? 8);
  const lab: Lab = await startLab(loadScenario());
  const database: TestDatabase = await createTestDatabase();
  const uploads = mkdtempSync(join(tmpdir(), 'mailguard-fuzz-tmp-'));
  const workDir = mkdtempSync(join(tmpdir(), 'mailguard-fuzz-'));
  const env = {
    ...lab.env,
    DATABASE_URL: database.url,
    TMPDIR: uploads,
    TRUST_PROXY: '1',
    SIGNUP_LIMIT_PER_IP_HOUR: '1000000',
    CHECK_DEADLINE_MS: String(deadlineMs),
    SMTP_TIMEOUT_MS: String(Math.min(3_000, deadlineMs)),
    SMTP_HELO_NAME: 'fuzz.mailguard.test',
    LOG_LEVEL: 'error',
  };
  let gateway: RunningProcess | null = null;
  const pool = new Pool({ connectionString: database.url, max: laneCount + 2 });
  try {
    gateway = await startGatewayProcess(env, workDir);
    const running = gateway;
    const port = Number(new URL(running.url).port);
    let exited: string | null = null;
    running.child.once('exit', (code, signal) => (exited = `the gateway exited (${code ?? signal})`));
    const net = new Random(options.seed ^ 0x5bd1e995);
    const clientAddress = () => `10.${net.int(0, 255)}.${net.int(0, 255)}.${net.int(1, 254)}`;

    const send = async (
      request: FuzzCase,
      key?: string,
    ): Promise<{ response: RawResponse | { failure: string }; ms: number }> => {
      const headers = [...request.headers];
      if (key && !headers.some(([name]) => name === 'x-api-key')) headers.push(['x-api-key', key]);
      if (!headers.some(([name]) => name === 'x-forwarded-for')) headers.push(['x-forwarded-for', clientAddress()]);
      const head = `${request.method} ${request.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${headers.map(([name, value]) => `${name}: ${Buffer.from(value, 'utf8').toString('latin1')}\r\n`).join('')}Content-Length: ${request.body.length}\r\n\r\n`;
      const started = performance.now();
      const response = await rawRequest(port, head, request.body, deadlineMs + 30_000);
      return { response, ms: performance.now() - started };
    };
    const json = async <T>(method: string, path: string, body: unknown, key?: string): Promise<T> => {
      const { response } = await send(
        {
          surface: 'corpus',
          method,
          path,
          headers: [['content-type', 'application/json']],
          body: Buffer.from(body === undefined ? '' : JSON.stringify(body)),
          auth: 'none',
        },
        key,
      );
      if ('failure' in response || response.status >= 300)
        throw new Error(
          `fuzz set-up: ${method} ${path} → ${'failure' in response ? response.failure : `${response.status} ${response.body.toString()}`}`,
        );
      return JSON.parse(response.body.toString()) as T;
    };

    // One account per lane, and one whose widget settings are rewritten (so that the lanes' allowed origins stay open), on the
    // lab's catch-all domain, with keys enough for the rate limit and credits enough for every check.
    const lanes: Lane[] = [];
    for (let i = 0; i <= laneCount; i++) {
      const signup = await json<{ apiKey: string; account: { id: string } }>('POST', '/v1/accounts', {
        email: `fuzz.lane${i}.${options.seed}@catchall.test`,
      });
      const keys = [signup.apiKey];
      const keyIds: string[] = [];
      // Each key makes a few of the next ones: no key goes past its own rate limit while setting up.
      for (let k = 1; k < KEYS_PER_LANE; k++) {
        const made = await json<{ key: string; id: string }>(
          'POST',
          '/v1/keys',
          { name: `lane ${i} key ${k}`, scope: 'full' },
          keys[Math.floor(k / 10)],
        );
        keys.push(made.key);
        keyIds.push(made.id);
      }
      const widgetKey = (
        await json<{ key: string }>(
          'POST',
          '/v1/keys',
          { name: `lane ${i} widget`, scope: 'verify', type: 'widget' },
          signup.apiKey,
        )
      ).key;
      await database.setBalance(signup.account.id, BALANCE);
      lanes.push({ accountId: signup.account.id, keys, keyId: keyIds[0], widgetKey, turn: 0 });
    }
    const settingsAccount = lanes.pop() as Lane;
    log(
      `fuzz: seed ${options.seed}, ${options.inputs.toLocaleString('en')} inputs, ${laneCount} lanes, check deadline ${deadlineMs} ms, gateway ${running.url}`,
    );

    // What a lane's account has been charged, but for what lists release as they end (whenever a list completes;
    // the release and charge rows of its rows as they settle add up to nothing).
    const charged = async (lane: Lane): Promise<number> => {
      const { rows } = await pool.query<{ sum: string }>(
        "SELECT coalesce(sum(delta), 0) AS sum FROM credit_transactions WHERE account_id = $1 AND NOT (kind = 'release' AND ref LIKE 'lst\\_%' AND ref NOT LIKE '%.%')",
        [lane.accountId],
      );
      return Number(rows[0].sum);
    };

    // Made as the lanes ask for them (a run of 100,000 holds only those in flight), in one seeded sequence.
    const rng = new Random(options.seed);
    const cliInputs = Math.round(options.inputs * CLI_SHARE);
    const corpus = regressionCorpus();
    let httpInputs = options.inputs - cliInputs;
    const nextCase = (): FuzzCase | undefined => (httpInputs-- > 0 ? (corpus.shift() ?? hostileCase(rng)) : undefined);
    const cliRng = new Random(options.seed ^ 0x2545f491);
    const cliAddresses = Array.from({ length: cliInputs }, () => hostileAddress(cliRng));

    const bySurface: FuzzReport['bySurface'] = {};
    const statuses: Record<string, number> = {};
    const failureCounts: Record<string, number> = {};
    const refusals: FuzzReport['refusals'] = {};
    const failures: FuzzFailure[] = [];
    const latencies: number[] = [];
    let stoppedAtTheDoor = 0;
    let done = 0;
    const fail = (kind: string, surface: Surface, request: string, detail: string) => {
      failureCounts[kind] = (failureCounts[kind] ?? 0) + 1;
      if (failures.length < KEEP_FAILURES) failures.push({ kind, surface, request, detail });
    };
    const count = (surface: Surface, status: string) => {
      const entry = (bySurface[surface] ??= { inputs: 0, statuses: {} });
      entry.inputs++;
      entry.statuses[status] = (entry.statuses[status] ?? 0) + 1;
      statuses[status] = (statuses[status] ?? 0) + 1;
    };

    const judge = async (lane: Lane, request: FuzzCase, key: string | undefined) => {
      const before = request.auth === 'none' ? 0 : await charged(lane);
      const { response, ms } = await send(request, key);
      latencies.push(ms);
      if ('failure' in response) {
        count(request.surface, 'no answer');
        fail('no answer', request.surface, describe(request), response.failure);
        return;
      }
      count(request.surface, String(response.status));
      const text = response.body.toString('utf8');
      if (response.status >= 500 && !(response.status === 503 && /"code":"unavailable"/.test(text)))
        fail(`${response.status}`, request.surface, describe(request), text.slice(0, 300));
      if (ms > deadlineMs + 1_000)
        fail(
          'slower than the deadline + 1 s',
          request.surface,
          describe(request),
          `${Math.round(ms)} ms, ${response.status}`,
        );
      if (request.badRequest) {
        const code = refusalCode(request.badRequest, text);
        // A rate limit stops an input at the door before its body is read: not the input's answer.
        if (code !== 'bad_request' && code !== 'rate_limited')
          fail(
            'not refused as bad_request',
            request.surface,
            describe(request),
            `${response.status} ${text.slice(0, 200)}`,
          );
      }
      if (response.status < 400) return;
      // An answer to HEAD has no body, by definition.
      if (request.method !== 'HEAD') {
        let body: unknown = null;
        try {
          body = JSON.parse(text);
        } catch {
          // Judged just below: not JSON at all.
        }
        const fields = body as { error?: unknown; code?: unknown } | null;
        const reason = `${response.status} ${String(fields?.error ?? text)
          .slice(0, 70)
          .replace(/\d+/g, 'N')}`;
        const refused = (refusals[request.surface] ??= {});
        refused[reason] = (refused[reason] ?? 0) + 1;
        if (typeof fields?.error !== 'string' || typeof fields.code !== 'string')
          fail(
            'error body without {error, code}',
            request.surface,
            describe(request),
            `${response.status} ${text.slice(0, 200)}`,
          );
      }
      const ownKey = request.headers.some(([name]) => name === 'x-api-key');
      if (key && !ownKey && (response.status === 429 || response.status === 401)) stoppedAtTheDoor++;
      if (request.auth !== 'none' && response.status < 500) {
        const after = await charged(lane);
        if (after !== before)
          fail(
            'charged for a refusal',
            request.surface,
            describe(request),
            `${response.status}: the ledger moved by ${after - before}`,
          );
      }
    };

    const runLane = async (lane: Lane) => {
      for (let request = nextCase(); request && !exited; request = nextCase()) {
        const account = request.auth === 'settings' ? settingsAccount : lane;
        const key =
          request.auth === 'widget'
            ? lane.widgetKey
            : request.auth === 'none'
              ? undefined
              : account.keys[account.turn++ % account.keys.length];
        await judge(account, { ...request, path: request.path.replace(':id', account.keyId) }, key);
        if (++done % 5_000 === 0) log(`  ${done.toLocaleString('en')} inputs answered`);
      }
    };

    const runCli = async () => {
      // Arguments cannot hold NUL, and ones starting with "-" are options, not addresses.
      const addresses = cliAddresses.map((address) => address.replace(/\u0000/g, '').replace(/^-+/, ''));
      for (let at = 0; at < addresses.length && !exited; at += CLI_BATCH) {
        const batch = addresses.slice(at, at + CLI_BATCH);
        const outcome = await new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
          execFile(
            process.execPath,
            [CLI, 'verify', '--json', ...batch],
            { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 120_000, maxBuffer: 64 * 1024 * 1024 },
            (error, stdout, stderr) =>
              done({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr }),
          );
        });
        let results: unknown[] = [];
        try {
          results = JSON.parse(outcome.stdout) as unknown[];
        } catch {
          // Judged just below.
        }
        for (const _ of batch) count('cli', outcome.code === 0 ? 'exit 0' : `exit ${outcome.code}`);
        if (outcome.code !== 0 || !Array.isArray(results) || results.length !== batch.length)
          fail(
            'cli',
            'cli',
            JSON.stringify(batch.slice(0, 5)),
            `exit ${outcome.code}: ${outcome.stderr.slice(0, 300)}`,
          );
      }
    };

    const held = holdings(running, uploads);
    const descriptorsBefore = held.descriptors();
    const started = performance.now();
    await Promise.all([...lanes.map((lane) => runLane(lane)), runCli()]);
    const seconds = (performance.now() - started) / 1000;

    // Still serving, and serving right: a valid check after everything else.
    if (!exited) {
      const { response } = await send(
        {
          surface: 'corpus',
          method: 'GET',
          path: '/v1/email-validation/jane@acme.test',
          headers: [],
          body: Buffer.alloc(0),
          auth: 'secret',
        },
        lanes[0].keys[0],
      );
      const answer = 'failure' in response ? null : (JSON.parse(response.body.toString()) as { status?: string });
      if (answer?.status !== 'valid')
        fail(
          'not serving right afterwards',
          'single',
          'GET /v1/email-validation/jane@acme.test',
          JSON.stringify(answer),
        );
    }
    if (exited) fail('process exit', 'corpus', '', exited);
    for (const line of running.output().split('\n')) {
      if (/unhandled rejection|uncaught exception/i.test(line))
        fail('unhandled error in the gateway', 'corpus', '', line.slice(0, 300));
    }
    // Lists still running and pooled connections not yet idle hold descriptors for a while: up to a minute.
    await held.settle(descriptorsBefore, 60_000);
    const stagedUploads = held.stagedUploads();
    const descriptors = { before: descriptorsBefore, after: held.descriptors() };
    if (stagedUploads > 0) fail('staged uploads left', 'lists', '', `${stagedUploads} upload folders`);
    if (descriptors.after > descriptors.before)
      fail('descriptors above the baseline', 'corpus', '', `${descriptors.before} before, ${descriptors.after} after`);

    let commands = 0;
    const violations: string[] = [];
    for (const server of lab.world.servers) {
      const stats = lab.stats(server.name);
      commands += stats.commands.length;
      violations.push(...stats.violations.map((violation) => `${server.name}: ${violation}`));
      for (const command of stats.commands)
        if (!SMTP_COMMAND.test(command)) violations.push(`${server.name}: ${JSON.stringify(command)}`);
    }
    for (const violation of violations) fail('SMTP socket', 'corpus', '', violation);

    const sorted = latencies.sort((a, b) => a - b);
    const report: FuzzReport = {
      inputs: options.inputs,
      seconds,
      bySurface,
      statuses,
      stoppedAtTheDoor,
      latency: { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] ?? 0 },
      smtp: { commands, violations },
      held: { stagedUploads, descriptors },
      failures,
      failureCounts,
      refusals,
      figures: '',
    };
    report.figures = figures(report);
    return report;
  } finally {
    await pool.end();
    await gateway?.stop();
    await database.drop();
    await lab.stop();
    for (const dir of [uploads, workDir]) rmSync(dir, { recursive: true, force: true });
  }
}

function figures(report: FuzzReport): string {
  const statusList = (statuses: Record<string, number>) =>
    Object.entries(statuses)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([status, n]) => `${status} ×${n}`)
      .join(', ');
  const fivexx = Object.entries(report.statuses)
    .filter(([status]) => /^5/.test(status))
    .reduce((sum, [, n]) => sum + n, 0);
  const lines = [
    `fuzz: ${report.inputs.toLocaleString('en')} inputs in ${report.seconds.toFixed(0)} s (${Math.round(report.inputs / report.seconds)}/s); answers p50 ${report.latency.p50.toFixed(0)} ms, p99 ${report.latency.p99.toFixed(0)} ms, max ${report.latency.max.toFixed(0)} ms`,
    ...Object.entries(report.bySurface)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(
        ([surface, { inputs, statuses }]) =>
          `  ${surface.padEnd(16)} ${String(inputs).padStart(7)}   ${statusList(statuses)}`,
      ),
    `  statuses: ${statusList(report.statuses)}`,
    `  5xx: ${fivexx}; keyed requests stopped at the door (401/429): ${report.stoppedAtTheDoor}; SMTP commands checked: ${report.smtp.commands.toLocaleString('en')}, violations: ${report.smtp.violations.length}`,
    `  held after the run: ${report.held.stagedUploads} staged uploads; descriptors ${report.held.descriptors.before} before, ${report.held.descriptors.after} after`,
    `  failures: ${
      Object.keys(report.failureCounts).length === 0
        ? 'none'
        : Object.entries(report.failureCounts)
            .map(([kind, n]) => `${kind} ×${n}`)
            .join(', ')
    }`,
    ...report.failures.map(
      (failure) => `    [${failure.kind}] ${failure.surface} ${failure.request}\n      → ${failure.detail}`,
    ),
  ];
  return lines.join('\n');
}
