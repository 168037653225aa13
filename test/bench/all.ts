import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { cpus, totalmem, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * `npm run bench:all`: the benchmarks of issue 18 one after another (never side by side: they share
 * the two cores), each writing its figures to a JSON file of its own (`BENCH_JSON`). Their figures
 * go, with the machine and the date, to `docs/bench/latest.json` (the one before it becomes
 * `previous.json`), and a Markdown table of the targets, latest beside previous, is printed for the
 * README.
 */
const root = resolve(__dirname, '../../..');
const output = join(root, 'docs', 'bench');

interface Run {
  name: string;
  script: string;
  env?: Record<string, string>;
}

const RUNS: Run[] = [
  { name: 'api', script: 'api.bench.js' },
  // BENCH_MILLION=1 adds the 1,000,000-row run (flat memory) after the customer-shaped list.
  { name: 'lists', script: 'lists.bench.js' },
];

type Figures = Record<string, unknown>;

interface Target {
  label: string;
  value: (figures: Figures) => number | null;
  target: string;
  met: (value: number) => boolean;
  digits: number;
}

/** What sits at a dotted path of the figures, e.g. `api.ratio.p50`. */
function walk(figures: Figures | null, path: string): unknown {
  let value: unknown = figures;
  for (const part of path.split('.')) value = (value as Record<string, unknown> | null | undefined)?.[part];
  return value;
}

/** The figure at a path; null when that run did not give it. */
function at(figures: Figures | null, path: string): number | null {
  const value = walk(figures, path);
  return typeof value === 'number' ? value : null;
}

/** The largest number in an object of them (peak RSS per process). */
function largest(figures: Figures | null, path: string): number | null {
  const numbers = Object.values((walk(figures, path) ?? {}) as Record<string, unknown>).filter(
    (entry): entry is number => typeof entry === 'number',
  );
  return numbers.length > 0 ? Math.max(...numbers) : null;
}

/** A single check's time to the floor's, at most `limit`. */
const ratio = (label: string, path: string, limit: number): Target => ({
  label,
  value: (f) => at(f, path),
  target: `≤ ${limit.toFixed(2)}`,
  met: (v) => v <= limit,
  digits: 2,
});

const TARGETS: Target[] = [
  ratio('single check ÷ floor, p50', 'api.ratio.p50', 1.1),
  ratio('single check ÷ floor, p99', 'api.ratio.p99', 1.25),
  ratio('every check connecting ÷ floor, p50', 'api.cold.ratio.p50', 1.1),
  ratio('every check connecting ÷ floor, p99', 'api.cold.ratio.p99', 1.25),
  { label: 'single check p50 (ms)', value: (f) => at(f, 'api.uncached.p50'), target: '', met: () => true, digits: 1 },
  { label: 'SMTP floor p50 (ms)', value: (f) => at(f, 'api.floor.p50'), target: '', met: () => true, digits: 1 },
  {
    label: 'bulk addresses/minute',
    value: (f) => at(f, 'lists.addressesPerMinute'),
    target: '≥ 150,000',
    met: (v) => v >= 150_000,
    digits: 0,
  },
  {
    label: 'SMTP sessions per address',
    value: (f) => at(f, 'lists.sessionsPerAddress'),
    target: '< 0.02',
    met: (v) => v < 0.02,
    digits: 4,
  },
  {
    label: 'largest process RSS (MB)',
    value: (f) => largest(f, 'lists.peakRssMb'),
    target: '< 512',
    met: (v) => v < 512,
    digits: 0,
  },
  {
    label: '1,000,000 rows: largest RSS (MB)',
    value: (f) => largest(f, 'lists.million.peakRssMb'),
    target: '< 512',
    met: (v) => v < 512,
    digits: 0,
  },
  {
    label: 'cached checks/s, two gateways',
    value: (f) => at(f, 'api.cached.twoGateways'),
    target: '≥ 5,000',
    met: (v) => v >= 5000,
    digits: 0,
  },
  {
    label: 'cached check p50 (ms)',
    value: (f) => at(f, 'api.cached.p50'),
    target: '< 2',
    met: (v) => v < 2,
    digits: 2,
  },
];

function run({ script, env }: Run, json: string): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [join(__dirname, script)], {
      env: { ...process.env, ...env, BENCH_JSON: json },
      stdio: 'inherit',
    });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolvePromise() : reject(new Error(`${script} exited (${code})`))));
  });
}

function table(latest: Figures, previous: Figures | null): string {
  const format = (value: number | null, digits: number) =>
    value === null
      ? '–'
      : value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  const rows = TARGETS.map(({ label, value, target, met, digits }) => {
    const now = value(latest);
    const mark = target && now !== null ? (met(now) ? ' ✓' : ' ✗') : '';
    return `| ${label} | ${target} | ${format(now, digits)}${mark} | ${format(previous ? value(previous) : null, digits)} |`;
  });
  const when = (figures: Figures | null) => (figures ? String(figures.date).slice(0, 16).replace('T', ' ') : '–');
  return [
    `| figure | target | latest (${when(latest)} UTC) | previous (${when(previous)} UTC) |`,
    '| --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}

async function main(): Promise<void> {
  const only = process.env.BENCH_ONLY?.split(',');
  const scratch = mkdtempSync(join(tmpdir(), 'mailguard-bench-all-'));
  const figures: Figures = {
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, model: cpus()[0]?.model ?? 'unknown', memoryGb: totalmem() / 2 ** 30 },
    node: process.version,
  };
  for (const bench of RUNS.filter((candidate) => !only || only.includes(candidate.name))) {
    const json = join(scratch, `${bench.name}.json`);
    await run(bench, json);
    figures[bench.name] = JSON.parse(readFileSync(json, 'utf8'));
  }
  mkdirSync(output, { recursive: true });
  const latestPath = join(output, 'latest.json');
  const previous = existsSync(latestPath) ? (JSON.parse(readFileSync(latestPath, 'utf8')) as Figures) : null;
  if (previous) renameSync(latestPath, join(output, 'previous.json'));
  writeFileSync(latestPath, JSON.stringify(figures, null, 2) + '\n');
  process.stdout.write(`\n${table(figures, previous)}\n\nfigures written to ${latestPath}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:all: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
