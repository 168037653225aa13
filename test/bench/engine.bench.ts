import { loadConfig } from '@mailguard/config';
import { createEngine } from '@mailguard/engine';
import { startLab } from '../lab';
import type { Scenario } from '../lab/scenario';

/**
 * `npm run bench:engine`: 500 uncached checks (500 domains on 50 lab servers) with 40 ms injected
 * per-reply latency. Prints p50/p99 per check and SMTP round trips per address, against the minimal
 * dialogue (connect+banner, EHLO, MAIL, RCPT, catch-all RCPT, QUIT = 6 round trips).
 */
const ADDRESSES = 500;
const SERVERS = 50;
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 40);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 25);

function scenario(): Scenario {
  const servers: Scenario['servers'] = {};
  const domains: Scenario['domains'] = {};
  for (let s = 0; s < SERVERS; s++) servers[`mx${s}.hosting.bench`] = { latencyMs: LATENCY_MS };
  for (let d = 0; d < ADDRESSES; d++) {
    domains[`company${d}.bench`] = {
      mx: [{ host: `mx${d % SERVERS}.hosting.bench`, priority: 10 }],
      mailboxes: { 'first.last': 'ok', jane: 'ok' },
      txt: ['v=spf1 mx -all'],
    };
  }
  return { servers, domains };
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function main(): Promise<void> {
  const lab = await startLab(scenario());
  try {
    const engine = createEngine(
      loadConfig({ ...lab.env, SMTP_HELO_NAME: 'bench.mailguard.test', LOG_LEVEL: 'silent' }),
    );
    const emails = Array.from(
      { length: ADDRESSES },
      (_, i) => `${i % 3 === 0 ? 'nobody' : 'first.last'}@company${i}.bench`,
    );
    const durations: number[] = [];
    const outcomes = new Map<string, number>();
    let next = 0;
    const started = Date.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < emails.length) {
          const email = emails[next++];
          const t0 = performance.now();
          const result = await engine.verify(email);
          durations.push(performance.now() - t0);
          outcomes.set(result.reason, (outcomes.get(result.reason) ?? 0) + 1);
        }
      }),
    );
    const elapsed = (Date.now() - started) / 1000;
    durations.sort((a, b) => a - b);
    let roundTrips = 0;
    let sessions = 0;
    for (const server of lab.world.servers) {
      roundTrips += lab.stats(server.name).replyBatches;
      sessions += lab.stats(server.name).sessions;
    }
    const minimal = 6 * LATENCY_MS;
    const p50 = percentile(durations, 50);
    const lines = [
      `engine bench: ${ADDRESSES} uncached checks, ${SERVERS} servers, ${LATENCY_MS} ms per reply, concurrency ${CONCURRENCY}`,
      `  p50 ${p50.toFixed(1)} ms   p99 ${percentile(durations, 99).toFixed(1)} ms   max ${durations[durations.length - 1].toFixed(1)} ms`,
      `  minimal dialogue ${minimal} ms (+10% = ${(minimal * 1.1).toFixed(0)} ms): median is ${((p50 / minimal) * 100).toFixed(0)}% of it`,
      `  SMTP round trips per address ${(roundTrips / ADDRESSES).toFixed(2)} (minimal dialogue: 6)   sessions per address ${(sessions / ADDRESSES).toFixed(2)}`,
      `  throughput ${(ADDRESSES / elapsed).toFixed(0)} checks/s   outcomes ${JSON.stringify(Object.fromEntries(outcomes))}`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await lab.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
