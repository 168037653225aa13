import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { startLab } from '../lab';
import { loadScenario } from '../lab/scenario';
import { startGatewayProcess } from '../support/processes';
import { createTestDatabase } from '../support/services';

/**
 * `npm run bench:upload`: big and odd CSV uploads to a gateway (one process, real Postgres) while
 * `/health/live` is asked every 10 ms; prints the upload's time and answer and the latency of
 * those health checks (p50/p99/max). Target: under 100 ms throughout (issue 15). Each upload gets
 * a gateway of its own, so that one list's processing does not weigh on the next upload.
 */
const SAMPLE_EVERY_MS = 10;
const SAMPLER = `
  const { parentPort, workerData } = require('node:worker_threads');
  const latencies = [];
  let sampling = true;
  parentPort.once('message', () => (sampling = false));
  (async () => {
    while (sampling) {
      const started = performance.now();
      await (await fetch(workerData.url)).arrayBuffer();
      latencies.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, workerData.every));
    }
    parentPort.postMessage(latencies);
  })();
`;
const MB = 1024 * 1024;

interface Upload {
  name: string;
  csv: () => Buffer;
}

/** ~48 MB: ordinary rows, then rows 499 columns wide, then rows with fields of 200 KB (all within the bounds). */
function bigMixedCsv(): Buffer {
  const parts: string[] = ['id,email,first_name,last_name,company,city\n'];
  let size = parts[0].length;
  let row = 0;
  while (size < 36 * MB) {
    const line = `${++row},person${row}@catchall.test,First${row % 997},Last${row % 991},Company ${row % 113} Ltd,City ${row % 71}\n`;
    parts.push(line);
    size += line.length;
  }
  const wide = (index: number) =>
    `${++row},wide${index}@catchall.test,${Array.from({ length: 497 }, (_, c) => `value ${c} of a wide row`).join(',')}\n`;
  for (let i = 0; size < 44 * MB; i++) {
    const line = wide(i);
    parts.push(line);
    size += line.length;
  }
  const field = 'x'.repeat(200 * 1024);
  for (let i = 0; size < 48 * MB; i++) {
    const line = `${++row},long${i}@catchall.test,"${field}",b,c,d\n`;
    parts.push(line);
    size += line.length;
  }
  return Buffer.from(parts.join(''));
}

/** ~48 MB of rows just under the bounds: 500 columns and about 250 KB each. */
function widestRowsCsv(): Buffer {
  const header = `email,${Array.from({ length: 499 }, (_, c) => `c${c}`).join(',')}\n`;
  const value = 'w'.repeat(500);
  const line = (row: number) => `wide${row}@catchall.test${`,${value}`.repeat(499)}\n`;
  const rows = Math.floor((48 * MB) / line(0).length);
  return Buffer.from(header + Array.from({ length: rows }, (_, row) => line(row)).join(''));
}

/** The battery's file (issue 15): 200,000 columns × 51 rows, 41.5 MB, refused for its width. */
function batteryCsv(): Buffer {
  const line = `a@catchall.test${',val'.repeat(200_000)}\n`;
  return Buffer.from(`email${',col'.repeat(200_000)}\n${line.repeat(50)}`);
}

/** Rows of 500 columns (the most a row may have) of one character each: the most fields per byte. */
function narrowFieldsCsv(): Buffer {
  const header = `email,${Array.from({ length: 499 }, (_, c) => `c${c}`).join(',')}\n`;
  const line = `n@catchall.test${',1'.repeat(499)}\n`;
  return Buffer.from(header + line.repeat(Math.floor((40 * MB) / line.length)));
}

const UPLOADS: Upload[] = [
  { name: '48 MB: 516k ordinary rows, then 499-column rows, then 200 KB fields', csv: bigMixedCsv },
  { name: '40 MB: rows of 500 one-character fields', csv: narrowFieldsCsv },
  { name: '48 MB: rows of 500 columns and 250 KB each (the bounds)', csv: widestRowsCsv },
  { name: '41.5 MB: 200,000 columns × 51 rows (refused)', csv: batteryCsv },
];

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
}

async function measure(upload: Upload): Promise<string> {
  const lab = await startLab(loadScenario());
  const database = await createTestDatabase();
  const gateway = await startGatewayProcess(
    { ...lab.env, DATABASE_URL: database.url },
    mkdtempSync(join(tmpdir(), 'mailguard-bench-')),
  );
  try {
    const signup = (await (
      await fetch(`${gateway.url}/v1/accounts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'bench@catchall.test' }),
      })
    ).json()) as { apiKey: string; account: { id: string } };
    await database.setBalance(signup.account.id, 10_000_000);
    const csv = upload.csv();
    const form = new FormData();
    form.append('file', new Blob([csv], { type: 'text/csv' }), 'bench.csv');
    // The sampler has a thread of its own: sending 48 MB must not delay its own clock.
    const sampler = new Worker(SAMPLER, {
      eval: true,
      workerData: { url: `${gateway.url}/health/live`, every: SAMPLE_EVERY_MS },
    });
    const sampled = new Promise<number[]>((resolve) => sampler.once('message', resolve));
    const started = performance.now();
    const response = await fetch(`${gateway.url}/v1/lists`, {
      method: 'POST',
      headers: { 'X-API-Key': signup.apiKey },
      body: form,
    });
    const answer = (await response.json()) as { total?: number; error?: string };
    const seconds = (performance.now() - started) / 1000;
    sampler.postMessage('stop');
    const sorted = (await sampled).sort((a, b) => a - b);
    await sampler.terminate();
    const outcome =
      response.status === 202
        ? `202, ${answer.total?.toLocaleString('en')} rows`
        : `${response.status} (${answer.error})`;
    return [
      `  ${upload.name} (${(csv.length / MB).toFixed(1)} MB)`,
      `    answered ${outcome} in ${seconds.toFixed(1)} s`,
      `    /health/live meanwhile: ${sorted.length} samples, p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, max ${(sorted[sorted.length - 1] ?? 0).toFixed(1)} ms`,
    ].join('\n');
  } finally {
    await gateway.stop();
    await database.drop();
    await lab.stop();
  }
}

async function main(): Promise<void> {
  process.stdout.write(
    'upload bench: one gateway process on Postgres, /health/live asked every 10 ms during each upload (target: under 100 ms)\n',
  );
  for (const upload of UPLOADS) process.stdout.write(`${await measure(upload)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
