import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { startLab, type Lab } from '../lab';
import type { Scenario, ServerSpec } from '../lab/scenario';
import { startGatewayProcess, startWorkerProcess, WORKER_KINDS, type RunningProcess } from '../support/processes';
import { createTestDatabase, flushRedisPrefix, TEST_REDIS_URL } from '../support/services';

/**
 * `npm run bench:lists`: a list shaped like customers' (issue 18): 60% of its rows at five big
 * providers (Gmail-, Outlook- with a 4.5.3 recipient cap, Yahoo- (accepts all), iCloud- and GMX-like
 * lab domains, each on an MX host of its own), the rest over 300 company domains (one in ten catch-all)
 * on 100 MX servers (two of which greylist), 5% duplicates, 3% syntax failures, 40 ms per SMTP reply;
 * the gateway and the four workers as separate processes on real Postgres and Redis. Prints addresses
 * per minute, SMTP sessions per address, the lab's peak concurrent sessions per MX host (against
 * SMTP_MX_CONCURRENCY) and the peak RSS of each process, sampled through the run.
 *
 * The rate is measured to the last row not waiting for a greylisting retry (issue 33: the server
 * decides when those end, not the product); the time to the list's real end, its greylisted rows
 * settled, is printed beside it. `BENCH_GREYLIST=0` runs without greylisting hosts.
 *
 * `BENCH_ADDRESSES` sets the list's size (default 100,000); `BENCH_SHAPE=spread` runs the older shape
 * (500 domains on 50 MX servers, no duplicates, no syntax failures); `BENCH_MILLION=1`
 * (`npm run bench:lists:million`) then runs a 1,000,000-row list on fresh processes and prints their
 * RSS through it; `BENCH_JSON=<path>` writes the figures as JSON; `BENCH_TRACE=1` prints the queues every two seconds;
 * `BENCH_NODE_OPTIONS` is the processes' NODE_OPTIONS (--cpu-prof is refused there: a profiler's --require, say).
 */
const ADDRESSES = Number(process.env.BENCH_ADDRESSES ?? 100_000);
const SHAPE = process.env.BENCH_SHAPE === 'spread' ? 'spread' : 'customer';
const MILLION = process.env.BENCH_MILLION === '1';
const LATENCY_MS = 40;
/** SMTP_MX_CONCURRENCY's default, which the lab's peak counters are held against. */
const MX_CAP = 5;

interface Provider {
  domain: string;
  mx: string;
  share: number;
  spec: ServerSpec;
}

/** Lab look-alikes of the big providers (names the product does not recognise: nothing is special-cased). */
const PROVIDERS: Provider[] = [
  { domain: 'gmail.bench', mx: 'gmail-smtp-in.l.google.bench', share: 0.3, spec: {} },
  { domain: 'outlook.bench', mx: 'outlook-bench.olc.protection.bench', share: 0.12, spec: { maxRecipients: 20 } },
  { domain: 'yahoo.bench', mx: 'mta5.am0.yahoodns.bench', share: 0.08, spec: { catchAll: true } },
  { domain: 'icloud.bench', mx: 'mx01.mail.icloud.bench', share: 0.05, spec: {} },
  { domain: 'gmx.bench', mx: 'mx00.gmx.bench', share: 0.05, spec: {} },
];
const COMPANY_DOMAINS = 300;
const COMPANY_SERVERS = 100;
/** Company MX servers that greylist (the first ones): 4xx for GREYLIST_MS, the retry after GREYLIST_RETRY_SECONDS. */
const GREYLISTING_SERVERS = process.env.BENCH_GREYLIST === '0' ? 0 : 2;
const GREYLIST_MS = 20_000;
const GREYLIST_RETRY_SECONDS = 30;
const DUPLICATES = 0.05;
const SYNTAX_FAILURES = 0.03;

interface Shape {
  scenario: Scenario;
  /** The CSV's address column, in upload order. */
  rows: string[];
  /** MX hosts whose peak sessions are printed one by one; the others as their maximum. */
  named: string[];
  others: string[];
  describe: string;
}

/** A small deterministic generator, so that every run uploads the same list. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function customerShape(addresses: number): Shape {
  const next = random(18);
  const servers: Scenario['servers'] = { 'mx.owner.bench': { catchAll: true } };
  const domains: Scenario['domains'] = { 'owner.bench': { mx: [{ host: 'mx.owner.bench', priority: 10 }] } };
  const unique = Math.round(addresses * (1 - DUPLICATES - SYNTAX_FAILURES));
  const perDomain: Array<{ domain: string; count: number }> = [];
  for (const provider of PROVIDERS) {
    servers[provider.mx] = { latencyMs: LATENCY_MS, ...provider.spec };
    domains[provider.domain] = { mx: [{ host: provider.mx, priority: 10 }] };
    perDomain.push({ domain: provider.domain, count: Math.round(unique * provider.share) });
  }
  const companies = unique - perDomain.reduce((sum, { count }) => sum + count, 0);
  for (let s = 0; s < COMPANY_SERVERS; s++)
    servers[`mx${s}.company.bench`] = {
      latencyMs: LATENCY_MS,
      ...(s < GREYLISTING_SERVERS ? { greylistMs: GREYLIST_MS } : {}),
    };
  for (let d = 0; d < COMPANY_DOMAINS; d++) {
    const domain = `co${d}.company.bench`;
    domains[domain] = {
      mx: [{ host: `mx${d % COMPANY_SERVERS}.company.bench`, priority: 10 }],
      catchAll: d % 10 === 0,
    };
    const count = Math.floor(companies / COMPANY_DOMAINS) + (d < companies % COMPANY_DOMAINS ? 1 : 0);
    perDomain.push({ domain, count });
  }
  const rows: string[] = [];
  for (const { domain, count } of perDomain) {
    const mailboxes: Record<string, string> = {};
    for (let i = 0; i < count; i++) {
      const local = `person${i}`;
      // Seven in ten exist; the rest are unknown users.
      if (next() < 0.7) mailboxes[local] = 'ok';
      rows.push(`${local}@${domain}`);
    }
    Object.assign(domains[domain] as object, { mailboxes });
  }
  const firstUnique = rows.length;
  for (let i = 0; rows.length < firstUnique + Math.round(addresses * DUPLICATES); i++) {
    const address = rows[Math.floor(next() * firstUnique)];
    // Some duplicates differ in case only: normalisation finds them.
    rows.push(i % 2 === 0 ? address : address.toUpperCase());
  }
  while (rows.length < addresses) rows.push(`broken${rows.length}@@${rows.length % 2 ? 'gmail.bench' : 'co1.company'}`);
  // Shuffled as real lists are: consecutive rows rarely share a domain.
  for (let i = rows.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [rows[i], rows[j]] = [rows[j], rows[i]];
  }
  return {
    scenario: { servers, domains },
    rows,
    named: PROVIDERS.map((provider) => provider.mx),
    others: Array.from({ length: COMPANY_SERVERS }, (_, s) => `mx${s}.company.bench`),
    describe: `60% at 5 big providers (Outlook-like capped at ${PROVIDERS[1].spec.maxRecipients} recipients), 40% over ${COMPANY_DOMAINS} company domains on ${COMPANY_SERVERS} MX servers (${GREYLISTING_SERVERS} greylisting for ${GREYLIST_MS / 1000} s), ${DUPLICATES * 100}% duplicates, ${SYNTAX_FAILURES * 100}% syntax failures`,
  };
}

/** The older shape: 500 domains on 50 MX servers, every row a different address. */
function spreadShape(addresses: number): Shape {
  const DOMAINS = 500;
  const SERVERS = 50;
  const servers: Scenario['servers'] = { 'mx.owner.bench': { catchAll: true } };
  const domains: Scenario['domains'] = { 'owner.bench': { mx: [{ host: 'mx.owner.bench', priority: 10 }] } };
  for (let s = 0; s < SERVERS; s++) servers[`mx${s}.lists.bench`] = { latencyMs: LATENCY_MS };
  const perDomain = addresses / DOMAINS;
  for (let d = 0; d < DOMAINS; d++) {
    const mailboxes: Record<string, string> = {};
    for (let i = 0; i < perDomain; i += 2) mailboxes[`person${i}`] = 'ok';
    domains[`co${d}.lists.bench`] = { mx: [{ host: `mx${d % SERVERS}.lists.bench`, priority: 10 }], mailboxes };
  }
  const rows: string[] = [];
  for (let i = 0; i < perDomain; i++) for (let d = 0; d < DOMAINS; d++) rows.push(`person${i}@co${d}.lists.bench`);
  return {
    scenario: { servers, domains },
    rows,
    named: [],
    others: Array.from({ length: SERVERS }, (_, s) => `mx${s}.lists.bench`),
    describe: `${DOMAINS} domains on ${SERVERS} MX servers`,
  };
}

/** CPU seconds a process has used (user + system, /proc/<pid>/stat in clock ticks of 10 ms). */
function cpuSeconds(pid: number | undefined): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The machine's busy and total CPU ticks so far (/proc/stat, every core). */
function machineTicks(): { busy: number; total: number } {
  const ticks = readFileSync('/proc/stat', 'utf8').split('\n')[0].split(/\s+/).slice(1).map(Number);
  const total = ticks.reduce((sum, tick) => sum + tick, 0);
  // idle and iowait
  return { busy: total - ticks[3] - ticks[4], total };
}

/** Resident set of a process (Linux VmRSS now, VmHWM its peak so far), in MB. */
function rssMb(pid: number | undefined, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024;
}

interface RunFigures {
  addresses: number;
  /** To the last row not waiting for a greylisting retry: the rate's measure. */
  seconds: number;
  addressesPerMinute: number;
  /** Rows seen waiting for a greylisting retry at once, at most. */
  greylistedRows: number;
  /** To the list's end, its greylisted rows settled. */
  secondsToEnd: number;
  sessionsPerAddress: number;
  peakSessionsPerHost: Record<string, number>;
  /** The per-MX session cap the run set (SMTP_MX_CONCURRENCY): no host's peak may pass it. */
  mxCap: number;
  peakRssMb: Record<string, number>;
  /** CPU seconds each process spent on the list (the lab's mail servers are the bench's own process). */
  cpuSeconds: Record<string, number>;
  /**
   * At every tenth of the list: seconds since the upload, the machine's busy CPU share since the last sample
   * (1 = both cores; Postgres is in it), and each process's RSS (MB). A rate that falls tenth by tenth shows a
   * cost per row that grows with the list.
   */
  rssSamples: Array<{ processed: number; seconds: number; busy: number; rssMb: Record<string, number> }>;
}

const sessionsOf = (lab: Lab, hosts: string[]) => hosts.reduce((sum, host) => sum + lab.stats(host).sessions, 0);

async function run(addresses: number): Promise<RunFigures> {
  const shape = SHAPE === 'spread' ? spreadShape(addresses) : customerShape(addresses);
  const lab = await startLab(shape.scenario, { recordCommands: false });
  const database = await createTestDatabase();
  const prefix = `mgbench:${randomBytes(4).toString('hex')}:`;
  const env = {
    ...lab.env,
    DATABASE_URL: database.url,
    REDIS_URL: TEST_REDIS_URL,
    REDIS_PREFIX: prefix,
    SMTP_HELO_NAME: 'bench.mailguard.test',
    SMTP_MX_CONCURRENCY: String(MX_CAP),
    GREYLIST_RETRY_SECONDS: String(GREYLIST_RETRY_SECONDS),
    RATE_LIMIT_PER_MINUTE: '100000',
    ...(process.env.BENCH_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS } : {}),
  };
  const work = () => mkdtempSync(join(tmpdir(), 'mailguard-bench-'));
  const processes: Array<[string, RunningProcess]> = [];
  try {
    processes.push(['gateway', await startGatewayProcess(env, work())]);
    for (const kind of WORKER_KINDS) processes.push([kind, await startWorkerProcess(kind, env, work())]);
    const url = processes[0][1].url;
    const signup = (await (
      await fetch(`${url}/v1/accounts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'bench@owner.bench' }),
      })
    ).json()) as { apiKey: string; account: { id: string } };
    await database.query(
      "WITH moved AS (UPDATE accounts SET balance = 10000000 WHERE id = $1 RETURNING balance) INSERT INTO credit_transactions (account_id, delta, kind, reason, balance_after) SELECT $1, 10000000 - 2500, 'grant', 'benchmark credits', balance FROM moved",
      [signup.account.id],
    );
    const csv = `id,email\n${shape.rows.map((email, index) => `${index + 1},${email}`).join('\n')}\n`;
    const form = new FormData();
    form.append('file', new Blob([csv], { type: 'text/csv' }), 'bench.csv');
    const hosts = [...shape.named, ...shape.others];
    const sessionsBefore = sessionsOf(lab, hosts);
    const rssOf = () =>
      Object.fromEntries(processes.map(([name, running]) => [name, rssMb(running.child.pid, 'VmRSS')]));
    const rssSamples: RunFigures['rssSamples'] = [];
    let ticks = machineTicks();
    const cpuBefore = Object.fromEntries(processes.map(([name, running]) => [name, cpuSeconds(running.child.pid)]));
    const labCpuBefore = process.cpuUsage();
    const trace = process.env.BENCH_TRACE ? traceQueues(prefix) : null;
    const started = performance.now();
    const upload = await fetch(`${url}/v1/lists`, {
      method: 'POST',
      headers: { 'X-API-Key': signup.apiKey },
      body: form,
    });
    const list = (await upload.json()) as { id: string; status: string };
    if (upload.status !== 202) throw new Error(`upload answered ${upload.status}: ${JSON.stringify(list)}`);
    const uploadedMs = performance.now() - started;
    let status = list.status;
    let processed = 0;
    let greylistedRows = 0;
    /** When every row but those waiting for a greylisting retry had settled, and how many had. */
    let others: { processed: number; seconds: number } | null = null;
    while (status === 'queued' || status === 'processing') {
      await new Promise((resolve) => setTimeout(resolve, 500));
      const body = (await (
        await fetch(`${url}/v1/lists/${list.id}`, { headers: { 'X-API-Key': signup.apiKey } })
      ).json()) as { status: string; processed: number; total: number; greylisted: { rows: number } | null };
      status = body.status;
      processed = body.processed;
      const waiting = body.greylisted?.rows ?? 0;
      greylistedRows = Math.max(greylistedRows, waiting);
      // Not on the status alone: a list still `queued` at a poll (its feed not begun) has settled nothing yet.
      // One that ended before this held is measured to its end (toOthers below).
      if (!others && processed + waiting >= body.total)
        others = { processed, seconds: (performance.now() - started) / 1000 };
      if (processed >= ((rssSamples.length + 1) * addresses) / 10 || status === 'completed') {
        const now = machineTicks();
        const busy = (now.busy - ticks.busy) / Math.max(1, now.total - ticks.total);
        ticks = now;
        rssSamples.push({ processed, seconds: (performance.now() - started) / 1000, busy, rssMb: rssOf() });
      }
    }
    const secondsToEnd = (performance.now() - started) / 1000;
    const toOthers = others ?? { processed, seconds: secondsToEnd };
    await trace?.stop();
    const labCpu = process.cpuUsage(labCpuBefore);
    const cpu: Record<string, number> = Object.fromEntries(
      processes.map(([name, running]) => [name, Number((cpuSeconds(running.child.pid) - cpuBefore[name]).toFixed(1))]),
    );
    cpu['lab (bench)'] = Number(((labCpu.user + labCpu.system) / 1e6).toFixed(1));
    const sessions = sessionsOf(lab, hosts) - sessionsBefore;
    const peakSessionsPerHost: Record<string, number> = Object.fromEntries(
      shape.named.map((host) => [host, lab.stats(host).peakConcurrent]),
    );
    peakSessionsPerHost['company hosts (max)'] = Math.max(
      ...shape.others.map((host) => lab.stats(host).peakConcurrent),
    );
    const peakRssMb = Object.fromEntries(
      processes.map(([name, running]) => [name, Math.round(rssMb(running.child.pid, 'VmHWM'))]),
    );
    const figures: RunFigures = {
      addresses: processed,
      seconds: Number(toOthers.seconds.toFixed(1)),
      addressesPerMinute: Math.round((toOthers.processed / toOthers.seconds) * 60),
      greylistedRows,
      secondsToEnd: Number(secondsToEnd.toFixed(1)),
      sessionsPerAddress: Number((sessions / processed).toFixed(4)),
      peakSessionsPerHost,
      mxCap: MX_CAP,
      peakRssMb,
      cpuSeconds: cpu,
      rssSamples: rssSamples.map((sample) => ({
        processed: sample.processed,
        seconds: Number(sample.seconds.toFixed(1)),
        busy: Number(sample.busy.toFixed(2)),
        rssMb: Object.fromEntries(Object.entries(sample.rssMb).map(([name, mb]) => [name, Math.round(mb)])),
      })),
    };
    const capHeld = Object.values(peakSessionsPerHost).every((peak) => peak <= MX_CAP);
    const lines = [
      `lists bench: ${addresses.toLocaleString('en')} rows, ${shape.describe}, ${LATENCY_MS} ms per SMTP reply; gateway + 4 workers as processes (load average ${loadAverage()})`,
      `  list ${status}: ${processed.toLocaleString('en')} rows in ${secondsToEnd.toFixed(1)} s (upload and storage ${(uploadedMs / 1000).toFixed(1)} s)`,
      `  throughput              ${figures.addressesPerMinute.toLocaleString('en')} addresses/minute (${toOthers.processed.toLocaleString('en')} rows in ${toOthers.seconds.toFixed(1)} s, to the last row not greylisted)`,
      `  greylisted rows         ${greylistedRows} waiting at most; the list ended ${(secondsToEnd - toOthers.seconds).toFixed(1)} s after the others (retry after ${GREYLIST_RETRY_SECONDS} s)`,
      `  SMTP sessions           ${sessions} opened, ${figures.sessionsPerAddress.toFixed(4)} per address`,
      `  peak sessions per MX    ${Object.entries(peakSessionsPerHost)
        .map(([host, peak]) => `${host} ${peak}`)
        .join(', ')} (cap ${MX_CAP}: ${capHeld ? 'held' : 'EXCEEDED'})`,
      `  peak RSS (MB)           ${Object.entries(peakRssMb)
        .map(([name, mb]) => `${name} ${mb}`)
        .join(', ')}`,
      `  CPU seconds             ${Object.entries(cpu)
        .map(([name, seconds]) => `${name} ${seconds}`)
        .join(', ')}`,
    ];
    lines.push('  through the run (seconds, machine CPU busy, RSS in MB):');
    for (const sample of figures.rssSamples)
      lines.push(
        `    ${sample.processed.toLocaleString('en').padStart(9)} rows: ${sample.seconds.toFixed(1).padStart(6)} s, busy ${sample.busy.toFixed(2)}, ${Object.entries(
          sample.rssMb,
        )
          .map(([name, mb]) => `${name} ${mb}`)
          .join(', ')}`,
      );
    process.stdout.write(`${lines.join('\n')}\n`);
    return figures;
  } finally {
    await Promise.all(processes.map(([, running]) => running.stop()));
    await lab.stop();
    await database.drop();
    await flushRedisPrefix(prefix);
  }
}

/** `BENCH_TRACE=1`: the queues' waiting, active and delayed jobs every two seconds, to see which stage holds the list up. */
function traceQueues(prefix: string): { stop(): Promise<void> } {
  const redis = new Redis(TEST_REDIS_URL);
  const started = performance.now();
  const sample = async () => {
    const counts = await Promise.all(
      ['dns', 'smtp', 'scoring', 'lists'].map(async (queue) => {
        const key = `${prefix}bull:${queue}`;
        const [wait, active, delayed] = await Promise.all([
          redis.llen(`${key}:wait`),
          redis.llen(`${key}:active`),
          redis.zcard(`${key}:delayed`),
        ]);
        return `${queue} ${wait}/${active}/${delayed}`;
      }),
    );
    process.stdout.write(
      `  [${((performance.now() - started) / 1000).toFixed(0)} s] waiting/active/delayed: ${counts.join(', ')}\n`,
    );
  };
  const timer = setInterval(() => void sample(), 2_000);
  return {
    async stop() {
      clearInterval(timer);
      await redis.quit();
    },
  };
}

function loadAverage(): string {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}

async function main(): Promise<void> {
  const figures = await run(ADDRESSES);
  const million = MILLION ? await run(1_000_000) : null;
  if (process.env.BENCH_JSON) {
    // Every figure but the per-process CPU and RSS samples, which are printed only.
    const { cpuSeconds: _cpuSeconds, rssSamples: _rssSamples, ...summary } = figures;
    const json = { shape: SHAPE, ...summary, million };
    writeFileSync(process.env.BENCH_JSON, `${JSON.stringify(json, null, 2)}\n`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
