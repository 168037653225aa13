import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLab } from '../lab';
import type { Scenario } from '../lab/scenario';
import { startGatewayProcess, startWorkerProcess, WORKER_KINDS, type RunningProcess } from '../support/processes';
import { createTestDatabase, flushRedisPrefix, TEST_REDIS_URL } from '../support/services';

/**
 * `npm run bench:lists`: a 100,000-address list over 500 lab domains (50 MX servers, 40 ms per
 * reply), the gateway and the four workers as separate processes on real Postgres and Redis.
 * Prints addresses per minute, SMTP sessions opened per address and the peak RSS of each process.
 */
const ADDRESSES = Number(process.env.BENCH_ADDRESSES ?? 100_000);
const DOMAINS = 500;
const SERVERS = 50;
const LATENCY_MS = 40;

function scenario(): Scenario {
  const servers: Scenario['servers'] = { 'mx.owner.bench': { catchAll: true } };
  const domains: Scenario['domains'] = { 'owner.bench': { mx: [{ host: 'mx.owner.bench', priority: 10 }] } };
  for (let s = 0; s < SERVERS; s++) servers[`mx${s}.lists.bench`] = { latencyMs: LATENCY_MS };
  const perDomain = ADDRESSES / DOMAINS;
  for (let d = 0; d < DOMAINS; d++) {
    const mailboxes: Record<string, string> = {};
    for (let i = 0; i < perDomain; i += 2) mailboxes[`person${i}`] = 'ok';
    domains[`co${d}.lists.bench`] = { mx: [{ host: `mx${d % SERVERS}.lists.bench`, priority: 10 }], mailboxes };
  }
  return { servers, domains };
}

/** Peak resident set of a process so far (Linux VmHWM), in MB. */
function peakRssMb(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

async function main(): Promise<void> {
  const lab = await startLab(scenario());
  const database = await createTestDatabase();
  const prefix = `mgbench:${randomBytes(4).toString('hex')}:`;
  const env = {
    ...lab.env,
    DATABASE_URL: database.url,
    REDIS_URL: TEST_REDIS_URL,
    REDIS_PREFIX: prefix,
    SMTP_HELO_NAME: 'bench.mailguard.test',
    RATE_LIMIT_PER_MINUTE: '100000',
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
      "WITH moved AS (UPDATE accounts SET balance = 1000000 WHERE id = $1 RETURNING balance) INSERT INTO credit_transactions (account_id, delta, kind, reason, balance_after) SELECT $1, 1000000 - 2500, 'grant', 'benchmark credits', balance FROM moved",
      [signup.account.id],
    );
    const perDomain = ADDRESSES / DOMAINS;
    const lines = ['id,email'];
    // Interleaved as real lists are: consecutive rows rarely share a domain.
    for (let i = 0; i < perDomain; i++)
      for (let d = 0; d < DOMAINS; d++) lines.push(`${lines.length},person${i}@co${d}.lists.bench`);
    const form = new FormData();
    form.append('file', new Blob([`${lines.join('\n')}\n`], { type: 'text/csv' }), 'bench.csv');
    const sessionsBefore = Array.from({ length: SERVERS }, (_, s) => lab.stats(`mx${s}.lists.bench`).sessions).reduce(
      (a, b) => a + b,
      0,
    );
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
    while (status === 'queued' || status === 'processing') {
      await new Promise((resolve) => setTimeout(resolve, 500));
      const body = (await (
        await fetch(`${url}/v1/lists/${list.id}`, { headers: { 'X-API-Key': signup.apiKey } })
      ).json()) as { status: string; processed: number };
      status = body.status;
      processed = body.processed;
    }
    const seconds = (performance.now() - started) / 1000;
    const sessions =
      Array.from({ length: SERVERS }, (_, s) => lab.stats(`mx${s}.lists.bench`).sessions).reduce((a, b) => a + b, 0) -
      sessionsBefore;
    const rss = processes.map(([name, running]) => `${name} ${peakRssMb(running.child.pid).toFixed(0)} MB`).join(', ');
    process.stdout.write(
      [
        `lists bench: ${ADDRESSES.toLocaleString('en')} addresses, ${DOMAINS} domains on ${SERVERS} MX servers, ${LATENCY_MS} ms per SMTP reply; gateway + 4 workers as processes`,
        `  list ${status}: ${processed.toLocaleString('en')} rows in ${seconds.toFixed(1)} s (upload and storage ${(uploadedMs / 1000).toFixed(1)} s)`,
        `  throughput              ${Math.round((processed / seconds) * 60).toLocaleString('en')} addresses/minute`,
        `  SMTP sessions           ${sessions} opened, ${(sessions / processed).toFixed(3)} per address`,
        `  peak RSS                ${rss}`,
      ].join('\n') + '\n',
    );
  } finally {
    await Promise.all(processes.map(([, running]) => running.stop()));
    await lab.stop();
    await database.drop();
    await flushRedisPrefix(prefix);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
