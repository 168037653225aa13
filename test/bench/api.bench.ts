import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import { loadConfig } from '@mailguard/config';
import { createEngine } from '@mailguard/engine';
import { startLab } from '../lab';
import type { Scenario } from '../lab/scenario';
import { ANY_FREE_PORTS } from '../support/processes';
import { flushRedisPrefix, TEST_POSTGRES_URL as POSTGRES, TEST_REDIS_URL as REDIS } from '../support/services';

/**
 * `npm run bench:api`: the gateway and the three workers as separate processes on real Postgres
 * and Redis, the lab answering with 40 ms per reply. Prints p50/p99 of uncached and cached single
 * checks over HTTP, the engine's own median for comparable addresses (queue overhead), and the
 * throughput of cached checks with the rate limit lifted.
 */
const LATENCY_MS = 40;
const UNCACHED = 200;
/** `BENCH_ONLY=cached`: only the cached figures, after a few uncached checks to fill the cache. */
const CACHED_ONLY = process.env.BENCH_ONLY === 'cached';
/** Clients of the throughput run: enough that the charges of one account batch well. */
const CONNECTIONS = 64;
const root = resolve(__dirname, '../../..');

function scenario(): Scenario {
  const servers: Scenario['servers'] = { 'mx.owner.bench': { catchAll: true } };
  const domains: Scenario['domains'] = { 'owner.bench': { mx: [{ host: 'mx.owner.bench', priority: 10 }] } };
  for (let s = 0; s < 20; s++) servers[`mx${s}.api.bench`] = { latencyMs: LATENCY_MS };
  for (let d = 0; d < 2 * UNCACHED; d++)
    domains[`co${d}.api.bench`] = {
      mx: [{ host: `mx${d % 20}.api.bench`, priority: 10 }],
      mailboxes: { 'first.last': 'ok' },
    };
  return { servers, domains };
}

function start(
  app: string,
  env: Record<string, string>,
  ready: RegExp,
): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  const child = spawn(process.execPath, [join(root, 'dist', 'apps', app, 'src', 'main.js')], {
    cwd: mkdtempSync(join(tmpdir(), 'mailguard-bench-')),
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...ANY_FREE_PORTS, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolvePromise, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = ready.exec(output);
      if (match) resolvePromise({ child, match });
    });
    child.once('exit', (code) => reject(new Error(`${app} exited (${code})`)));
  });
}

/** wrk's requests per second against one URL for `seconds`, or null when wrk is not installed. */
function wrk(target: string, key: string, connections: number, seconds: number): Promise<number | null> {
  return new Promise((resolvePromise) => {
    const child = spawn('wrk', ['-t1', `-c${connections}`, `-d${seconds}s`, '-H', `X-API-Key: ${key}`, target], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', () => resolvePromise(null));
    child.once('exit', () => {
      const rate = /Requests\/sec:\s+([\d.]+)/.exec(output);
      resolvePromise(rate ? Number(rate[1]) : null);
    });
  });
}

/**
 * Cached checks per second under load, CONNECTIONS spread over the gateway processes given:
 * measured with wrk when it is installed (Debian `wrk`, a C load generator that leaves the cores
 * to the service), else with Node's fetch from this process.
 */
async function cachedThroughput(
  urls: string[],
  key: string,
  email: string,
  check: (email: string) => Promise<unknown>,
): Promise<{ perSecond: number; how: string }> {
  const path = `/v1/email-validation/${encodeURIComponent(email)}`;
  // A short run first, not counted: the JIT warms up on the hot path as a long-running gateway's has.
  await Promise.all(urls.map((url) => wrk(`${url}${path}`, key, CONNECTIONS / urls.length, 2)));
  const rates = await Promise.all(urls.map((url) => wrk(`${url}${path}`, key, CONNECTIONS / urls.length, 5)));
  if (rates.every((rate) => rate !== null))
    return {
      perSecond: rates.reduce((sum, rate) => sum + (rate as number), 0),
      how: `wrk, ${CONNECTIONS} connections, 5 s`,
    };
  const started = performance.now();
  let done = 0;
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (performance.now() - started < 5_000) {
        await check(email);
        done++;
      }
    }),
  );
  return {
    perSecond: done / ((performance.now() - started) / 1000),
    how: 'Node fetch, 64 in flight, 5 s (install wrk for a fairer figure)',
  };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

async function timed<T>(work: () => Promise<T>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

async function main(): Promise<void> {
  const lab = await startLab(scenario());
  const dbName = `mg_bench_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: POSTGRES });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const dbUrl = new URL(POSTGRES);
  dbUrl.pathname = `/${dbName}`;
  const env = {
    ...lab.env,
    DATABASE_URL: dbUrl.toString(),
    REDIS_URL: REDIS,
    REDIS_PREFIX: `mgbench:${randomBytes(4).toString('hex')}:`,
    SMTP_HELO_NAME: 'bench.mailguard.test',
    RATE_LIMIT_PER_MINUTE: '10000000',
  };
  const processes: ChildProcess[] = [];
  try {
    const gateway = await start('gateway', env, /listening on (http:\/\/[^\s]+)/);
    processes.push(gateway.child);
    for (const worker of ['dns-worker', 'smtp-worker', 'scoring-worker'])
      processes.push((await start(worker, env, /working on queue/)).child);
    const url = gateway.match[1];
    const signup = (await (
      await fetch(`${url}/v1/accounts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'bench@owner.bench' }),
      })
    ).json()) as { apiKey: string; account: { id: string } };
    const db = new Client({ connectionString: dbUrl.toString() });
    await db.connect();
    await db.query(
      "WITH moved AS (UPDATE accounts SET balance = 1000000 WHERE id = $1 RETURNING balance) INSERT INTO credit_transactions (account_id, delta, kind, reason, balance_after) SELECT $1, 1000000 - 2500, 'grant', 'benchmark credits', balance FROM moved",
      [signup.account.id],
    );
    await db.end();
    const check = (email: string) =>
      fetch(`${url}/v1/email-validation/${encodeURIComponent(email)}`, {
        headers: { 'X-API-Key': signup.apiKey },
      }).then((response) => response.arrayBuffer());

    const run = async (emails: string[], concurrency: number, work: (email: string) => Promise<unknown>) => {
      const durations: number[] = [];
      let next = 0;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < emails.length) {
            const email = emails[next++];
            durations.push(await timed(() => work(email)));
          }
        }),
      );
      return durations;
    };

    const apiEmails = Array.from({ length: UNCACHED }, (_, i) => `first.last@co${i}.api.bench`);
    const engineEmails = Array.from({ length: UNCACHED }, (_, i) => `first.last@co${UNCACHED + i}.api.bench`);
    const engine = createEngine(loadConfig({ ...lab.env, SMTP_HELO_NAME: 'bench.mailguard.test' }));
    const direct = await run(CACHED_ONLY ? engineEmails.slice(0, 5) : engineEmails, 5, (email) => engine.verify(email));
    const uncached = await run(CACHED_ONLY ? apiEmails.slice(0, 20) : apiEmails, 5, check);
    // Latency of a cached check is measured one at a time; throughput under load separately.
    const cached = await run(
      Array.from({ length: 500 }, (_, i) => apiEmails[i % uncached.length]),
      1,
      check,
    );
    const throughput = await cachedThroughput([url], signup.apiKey, apiEmails[0], check);
    // A second gateway process, as a second replica would run: gateways share nothing but Postgres and Redis.
    const second = await start('gateway', env, /listening on (http:\/\/[^\s]+)/);
    processes.push(second.child);
    const pair = await cachedThroughput([url, second.match[1]], signup.apiKey, apiEmails[0], check);

    const overhead = (percentile(uncached, 50) / percentile(direct, 50) - 1) * 100;
    process.stdout.write(
      [
        `api bench: gateway + dns/smtp/scoring workers as separate processes, Postgres, Redis, ${LATENCY_MS} ms per SMTP reply`,
        `  uncached single check   p50 ${percentile(uncached, 50).toFixed(1)} ms   p99 ${percentile(uncached, 99).toFixed(1)} ms   (${uncached.length} addresses, concurrency 5)`,
        `  engine alone            p50 ${percentile(direct, 50).toFixed(1)} ms   p99 ${percentile(direct, 99).toFixed(1)} ms   queue overhead at p50: ${overhead.toFixed(1)}%`,
        `  cached single check     p50 ${percentile(cached, 50).toFixed(2)} ms   p99 ${percentile(cached, 99).toFixed(2)} ms   (one at a time)`,
        `  cached throughput       ${throughput.perSecond.toFixed(0)} checks/s with one gateway process, ${pair.perSecond.toFixed(0)} checks/s with two (${throughput.how}, rate limit lifted)`,
      ].join('\n') + '\n',
    );
  } finally {
    for (const child of processes) child.kill('SIGTERM');
    await new Promise((resolvePromise) => setTimeout(resolvePromise, 1500));
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
    await lab.stop();
    await flushRedisPrefix(env.REDIS_PREFIX);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
