import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Redis } from 'ioredis';
import { Client } from 'pg';
import { loadConfig } from '@mailguard/config';
import { createEngine } from '@mailguard/engine';
import { startLab } from '../lab';
import type { Scenario } from '../lab/scenario';
import { ANY_FREE_PORTS } from '../support/processes';
import { flushRedisPrefix, TEST_POSTGRES_URL as POSTGRES, TEST_REDIS_URL as REDIS } from '../support/services';

/**
 * `npm run bench:api`: the gateway and the three workers as separate processes on real Postgres
 * and Redis, the lab answering with 40 ms per reply. Prints p50/p99 of uncached single checks over
 * HTTP one at a time, each after the floor (a bare SMTP dialogue for the same kind of address at
 * the same lab server; where every check connects, also after the STARTTLS floor, the same dialogue
 * with STARTTLS as the lab's servers offer it), the latency budget per stage (from the jobs' own timestamps), the engine's
 * own figures for comparable addresses, cached single checks, and the throughput of cached checks
 * with the rate limit lifted. `BENCH_JSON=<path>` also writes the figures there as JSON.
 */
const LATENCY_MS = 40;
const UNCACHED = 200;
/** Uncached checks of the second series, where every check connects (SMTP_SESSION_IDLE_MS=0). */
const COLD = 100;
const SERVERS = 20;
const serverOf = (index: number) => `mx${index % SERVERS}.api.bench`;
/**
 * Uncached checks before each series, not counted, at a server of their own: the processes' code
 * warmed up as a running service's is, while every measured server is still met for the first time.
 */
const WARM_UP = 20;
const WARM_SERVER = 'mx.warm.api.bench';
/** Clients of the throughput run: enough that the charges of one account batch well. */
const CONNECTIONS = 64;
const root = resolve(__dirname, '../../..');

function scenario(): Scenario {
  const servers: Scenario['servers'] = { 'mx.owner.bench': { catchAll: true } };
  const domains: Scenario['domains'] = { 'owner.bench': { mx: [{ host: 'mx.owner.bench', priority: 10 }] } };
  for (let s = 0; s < SERVERS; s++) servers[serverOf(s)] = { latencyMs: LATENCY_MS };
  servers[WARM_SERVER] = { latencyMs: LATENCY_MS };
  for (let d = 0; d < 2 * WARM_UP; d++)
    domains[`warm${d}.api.bench`] = { mx: [{ host: WARM_SERVER, priority: 10 }], mailboxes: { 'first.last': 'ok' } };
  for (let d = 0; d < 2 * UNCACHED + COLD; d++)
    domains[`co${d}.api.bench`] = {
      mx: [{ host: serverOf(d), priority: 10 }],
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

/** A TLS session (ticket) per MX host, kept by the STARTTLS floor as an MTA's TLS session cache keeps them. */
type FloorTickets = Map<string, Buffer>;

/**
 * A floor: what any prober must wait for at this server, by a bare client that is not ours —
 * connect, banner, EHLO, MAIL, RCPT target, RCPT made-up (five replies, one at a time), then QUIT
 * without waiting. With `starttls` (the second floor), STARTTLS and its handshake after the first
 * EHLO, then EHLO again (RFC 3207): seven replies and a handshake, with the TLS options a plain
 * client uses (the host's name for SNI, certificates unverified as opportunistic TLS is). Its
 * first dialogue with a host is a full handshake; later ones resume the ticket that host gave it,
 * as the prober does. Milliseconds, and whether the handshake resumed.
 */
async function floorDialogue(
  ip: string,
  port: number,
  target: string,
  starttls: { host: string; tickets: FloorTickets } | null = null,
): Promise<{ ms: number; resumed: boolean }> {
  const started = performance.now();
  const domain = target.slice(target.indexOf('@') + 1);
  let socket: Socket = connect({ host: ip, port });
  let buffer = '';
  let failure: Error | null = null;
  let wake: (() => void) | null = null;
  const listen = (stream: Socket) => {
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      buffer += chunk;
      wake?.();
    });
    stream.on('error', (error) => {
      failure = error;
      wake?.();
    });
  };
  // One reply per command; a multi-line reply ends with its "code SP" line.
  const reply = async (): Promise<string> => {
    let last: RegExpExecArray | null;
    while (!(last = /^(\d{3}) .*\r\n/m.exec(buffer))) {
      if (failure) throw failure;
      await new Promise<void>((resolvePromise) => (wake = resolvePromise));
    }
    buffer = buffer.slice(last.index + last[0].length);
    return last[1];
  };
  const say = (command: string) => {
    socket.write(`${command}\r\n`);
    return reply();
  };
  listen(socket);
  await reply();
  await say('EHLO floor.bench.test');
  let resumed = false;
  if (starttls) {
    if ((await say('STARTTLS')) !== '220') throw new Error(`${starttls.host} refused STARTTLS`);
    const { host, tickets } = starttls;
    socket.removeAllListeners('data');
    const secure = tlsConnect({ socket, servername: host, rejectUnauthorized: false, session: tickets.get(host) });
    secure.on('session', (session: Buffer) => tickets.set(host, session));
    await new Promise<void>((resolvePromise, reject) => {
      secure.once('secureConnect', resolvePromise);
      secure.once('error', reject);
    });
    resumed = secure.isSessionReused();
    socket = secure;
    listen(socket);
    await say('EHLO floor.bench.test');
  }
  await say('MAIL FROM:<floor@bench.test>');
  await say(`RCPT TO:<${target}>`);
  await say(`RCPT TO:<floor${randomBytes(6).toString('hex')}@${domain}>`);
  const ms = performance.now() - started;
  socket.end('QUIT\r\n');
  return { ms, resumed };
}

/** The jobs of one check, by stage: when each was added, taken and finished (epoch ms, from Redis). */
interface JobTimes {
  timestamp: number;
  processedOn: number;
  finishedOn: number;
}

/** Stages of a single check, in order; hops are the time a job waited in its queue. */
const STAGES = [
  'gateway in (auth, charge, enqueue)',
  'hop gateway → dns',
  'DNS until the smtp job is added',
  'hop dns → smtp',
  'SMTP stage',
  '  of which the dialogue',
  'hop smtp → scoring',
  'scoring (verdict, store)',
  'hop scoring → gateway, reply',
  'DNS stage, whole (overlapped)',
] as const;

function stageTimes(
  sent: number,
  answered: number,
  jobs: { dns: JobTimes; smtp: JobTimes; scoring: JobTimes },
  dialogueMs: number,
): number[] {
  const { dns, smtp, scoring } = jobs;
  return [
    dns.timestamp - sent,
    dns.processedOn - dns.timestamp,
    smtp.timestamp - dns.processedOn,
    smtp.processedOn - smtp.timestamp,
    scoring.timestamp - smtp.processedOn,
    dialogueMs,
    scoring.processedOn - scoring.timestamp,
    scoring.finishedOn - scoring.processedOn,
    answered - scoring.finishedOn,
    dns.finishedOn - dns.processedOn,
  ];
}

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
    const direct = await run(engineEmails, 1, (email) => engine.verify(email));

    // One check at a time, each right after the floor's dialogue at the same server.
    const redis = new Redis(REDIS);
    const store = new Client({ connectionString: dbUrl.toString() });
    await store.connect();
    const jobTimes = async (queue: string, jobId: string): Promise<JobTimes> => {
      const [timestamp, processedOn, finishedOn] = await redis.hmget(
        `${env.REDIS_PREFIX}bull:${queue}:${jobId}`,
        'timestamp',
        'processedOn',
        'finishedOn',
      );
      return { timestamp: Number(timestamp), processedOn: Number(processedOn), finishedOn: Number(finishedOn) };
    };
    /** With `tickets`: each check after the STARTTLS floor too, which keeps its tickets there. */
    const series = async (emails: string[], tickets: FloorTickets | null = null) => {
      const floor: number[] = [];
      const starttlsFloor: number[] = [];
      let floorResumed = 0;
      const uncached: number[] = [];
      const stages: number[][] = STAGES.map(() => []);
      for (const [index, email] of emails.entries()) {
        const host = serverOf(index);
        floor.push((await floorDialogue(lab.ipOf(host), lab.smtpPort, email)).ms);
        if (tickets) {
          const dialogue = await floorDialogue(lab.ipOf(host), lab.smtpPort, email, { host, tickets });
          starttlsFloor.push(dialogue.ms);
          if (dialogue.resumed) floorResumed++;
        }
        const sent = Date.now();
        const started = performance.now();
        const result = (await (
          await fetch(`${url}/v1/email-validation/${encodeURIComponent(email)}`, {
            headers: { 'X-API-Key': signup.apiKey },
          })
        ).json()) as { checks: { smtp: { durationMs: number } } };
        uncached.push(performance.now() - started);
        const answered = Date.now();
        const {
          rows: [{ id }],
        } = await store.query<{ id: string }>('SELECT id FROM verifications WHERE email = $1', [email]);
        const times = stageTimes(
          sent,
          answered,
          {
            dns: await jobTimes('dns', `${id}.dns.inspect.0`),
            smtp: await jobTimes('smtp', `${id}.smtp.probe.0`),
            scoring: await jobTimes('scoring', `${id}.scoring.conclude.0`),
          },
          result.checks.smtp.durationMs,
        );
        times.forEach((ms, stage) => stages[stage].push(ms));
      }
      return { floor, starttlsFloor, floorResumed, uncached, stages };
    };
    const warmUp = async (from: number) => {
      for (let d = from; d < from + WARM_UP; d++) await check(`first.last@warm${d}.api.bench`);
    };
    // Sessions kept open between checks (the default): most checks find one at their MX host.
    await warmUp(0);
    const { floor, uncached, stages } = await series(apiEmails);
    // Every check connects: a fresh smtp-worker that keeps no session open.
    const smtpWorker = processes.find((child) => child.spawnargs.some((arg) => arg.includes('smtp-worker')));
    smtpWorker?.kill('SIGTERM');
    if (smtpWorker) await new Promise((resolvePromise) => smtpWorker.once('exit', resolvePromise));
    processes.push((await start('smtp-worker', { ...env, SMTP_SESSION_IDLE_MS: '0' }, /working on queue/)).child);
    await warmUp(WARM_UP);
    // The lab's own count of TLS sessions at the measured hosts: the prober's are the series' less the floor's.
    const tlsAtHosts = () =>
      Array.from({ length: SERVERS }, (_, s) => lab.stats(serverOf(s))).reduce(
        (sum, stats) => ({ sessions: sum.sessions + stats.tlsSessions, resumed: sum.resumed + stats.tlsResumed }),
        { sessions: 0, resumed: 0 },
      );
    const tlsBefore = tlsAtHosts();
    const cold = await series(
      Array.from({ length: COLD }, (_, i) => `first.last@co${2 * UNCACHED + i}.api.bench`),
      new Map(),
    );
    const tlsAfter = tlsAtHosts();
    const proberTls = {
      sessions: tlsAfter.sessions - tlsBefore.sessions - cold.starttlsFloor.length,
      resumed: tlsAfter.resumed - tlsBefore.resumed - cold.floorResumed,
    };
    await store.end();
    redis.disconnect();

    // Latency of a cached check is measured one at a time; throughput under load separately.
    const cached = await run(
      Array.from({ length: 500 }, (_, i) => apiEmails[i % apiEmails.length]),
      1,
      check,
    );
    const throughput = await cachedThroughput([url], signup.apiKey, apiEmails[0], check);
    // A second gateway process, as a second replica would run: gateways share nothing but Postgres and Redis.
    const second = await start('gateway', env, /listening on (http:\/\/[^\s]+)/);
    processes.push(second.child);
    const pair = await cachedThroughput([url, second.match[1]], signup.apiKey, apiEmails[0], check);

    const p = (values: number[]) => ({ p50: percentile(values, 50), p99: percentile(values, 99) });
    const ratio = (values: number[], floors: number[]) => ({
      p50: percentile(values, 50) / percentile(floors, 50),
      p99: percentile(values, 99) / percentile(floors, 99),
    });
    const byStage = (times: number[][]) =>
      Object.fromEntries(STAGES.map((stage, index) => [stage.trim(), p(times[index])]));
    // Each host's first check of the series: the prober and the floor both meet it with a full handshake.
    const firstUncached = cold.uncached.slice(0, SERVERS);
    const firstFloor = cold.starttlsFloor.slice(0, SERVERS);
    const figures = {
      uncached: p(uncached),
      floor: p(floor),
      ratio: ratio(uncached, floor),
      stages: byStage(stages),
      cold: {
        uncached: p(cold.uncached),
        floor: p(cold.floor),
        ratio: ratio(cold.uncached, cold.floor),
        starttlsFloor: p(cold.starttlsFloor),
        starttlsRatio: ratio(cold.uncached, cold.starttlsFloor),
        firstContact: {
          uncached: percentile(firstUncached, 50),
          starttlsFloor: percentile(firstFloor, 50),
          ratio: percentile(firstUncached, 50) / percentile(firstFloor, 50),
        },
        tls: {
          checks: COLD,
          proberSessions: proberTls.sessions,
          proberResumed: proberTls.resumed,
          floorSessions: cold.starttlsFloor.length,
          floorResumed: cold.floorResumed,
        },
        stages: byStage(cold.stages),
      },
      engine: p(direct),
      cached: { ...p(cached), oneGateway: throughput.perSecond, twoGateways: pair.perSecond },
    };
    const overhead = (percentile(uncached, 50) / percentile(direct, 50) - 1) * 100;
    process.stdout.write(
      [
        `api bench: gateway + dns/smtp/scoring workers as separate processes, Postgres, Redis, ${LATENCY_MS} ms per SMTP reply`,
        `  floor (bare SMTP dialogue) p50 ${figures.floor.p50.toFixed(1)} ms   p99 ${figures.floor.p99.toFixed(1)} ms   (connect, banner, EHLO, MAIL, 2 × RCPT; no STARTTLS)`,
        `  uncached single check   p50 ${figures.uncached.p50.toFixed(1)} ms   p99 ${figures.uncached.p99.toFixed(1)} ms   (${UNCACHED} addresses at ${SERVERS} MX hosts, one at a time, each after the floor, after ${WARM_UP} at another host; sessions kept open between checks)`,
        `  ratio to the floor      p50 ${figures.ratio.p50.toFixed(3)}×   p99 ${figures.ratio.p99.toFixed(3)}×   (target ≤ 1.10× / ≤ 1.25×)`,
        `  every check connecting    p50 ${figures.cold.uncached.p50.toFixed(1)} ms   p99 ${figures.cold.uncached.p99.toFixed(1)} ms   ratio ${figures.cold.ratio.p50.toFixed(3)}× / ${figures.cold.ratio.p99.toFixed(3)}×   (${COLD} more, SMTP_SESSION_IDLE_MS=0: no session kept open)`,
        `  STARTTLS floor          p50 ${figures.cold.starttlsFloor.p50.toFixed(1)} ms   p99 ${figures.cold.starttlsFloor.p99.toFixed(1)} ms   (connect, banner, EHLO, STARTTLS, handshake, EHLO, MAIL, 2 × RCPT; one reply at a time; full handshake at a host's first, resumed after)`,
        `  connecting ÷ STARTTLS floor p50 ${figures.cold.starttlsRatio.p50.toFixed(3)}×   p99 ${figures.cold.starttlsRatio.p99.toFixed(3)}×   (target ≤ 1.10× at p50); each host's first check: ${figures.cold.firstContact.uncached.toFixed(1)} ms ÷ ${figures.cold.firstContact.starttlsFloor.toFixed(1)} ms = ${figures.cold.firstContact.ratio.toFixed(3)}× (p50 of ${SERVERS}, both full handshakes)`,
        `  STARTTLS at the lab     the prober ${proberTls.sessions} of ${COLD} connecting checks (${proberTls.resumed} resumed), the floor ${cold.starttlsFloor.length} (${cold.floorResumed} resumed); the least a connecting check waits: ${5 * LATENCY_MS} ms of replies (banner, EHLO, STARTTLS, EHLO, MAIL + 2 × RCPT pipelined) and a handshake`,
        `  latency budget per stage (p50 / p99 of each, ms; sessions kept | every check connecting):`,
        ...STAGES.map(
          (stage, index) =>
            `    ${stage.padEnd(38)} ${percentile(stages[index], 50).toFixed(1).padStart(6)} / ${percentile(stages[index], 99).toFixed(1).padEnd(6)} | ${percentile(cold.stages[index], 50).toFixed(1).padStart(6)} / ${percentile(cold.stages[index], 99).toFixed(1)}`,
        ),
        `  engine alone            p50 ${figures.engine.p50.toFixed(1)} ms   p99 ${figures.engine.p99.toFixed(1)} ms   queue overhead at p50: ${overhead.toFixed(1)}%`,
        `  cached single check     p50 ${figures.cached.p50.toFixed(2)} ms   p99 ${figures.cached.p99.toFixed(2)} ms   (one at a time)`,
        `  cached throughput       ${throughput.perSecond.toFixed(0)} checks/s with one gateway process, ${pair.perSecond.toFixed(0)} checks/s with two (${throughput.how}, rate limit lifted)`,
      ].join('\n') + '\n',
    );
    if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, JSON.stringify(figures, null, 2) + '\n');
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
