import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { cpus, totalmem, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * `npm run bench:all`: the benchmarks of issues 18 and 33 one after another (never side by side: they share
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
  // The list targets hold at every size: a small list first (never with the 1,000,000 rows) …
  { name: 'lists20k', script: 'lists.bench.js', env: { BENCH_ADDRESSES: '20000', BENCH_MILLION: '0' } },
  // … then the customer-shaped 100,000 rows; BENCH_MILLION=1 adds the 1,000,000-row run (flat memory) after it.
  { name: 'lists', script: 'lists.bench.js', env: { BENCH_ADDRESSES: '100000' } },
];

type Figures = Record<string, unknown>;

/** A target: the figure's bound and whether a value keeps to it (some bounds are the run's own, as the per-MX cap). */
interface Bound {
  text: string;
  met: (value: number, figures: Figures) => boolean;
}

interface Target {
  label: string;
  value: (figures: Figures) => number | null;
  /** None: a figure shown for reading the others. */
  bound: Bound | null;
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

/** The largest number in an object of them (peak RSS per process, peak sessions per MX host). */
function largest(figures: Figures | null, path: string): number | null {
  const numbers = Object.values((walk(figures, path) ?? {}) as Record<string, unknown>).filter(
    (entry): entry is number => typeof entry === 'number',
  );
  return numbers.length > 0 ? Math.max(...numbers) : null;
}

const number = (value: number, digits: number) =>
  value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const atMost = (limit: number, digits: number): Bound => ({
  text: `≤ ${number(limit, digits)}`,
  met: (v) => v <= limit,
});
const below = (limit: number, digits: number): Bound => ({ text: `< ${number(limit, digits)}`, met: (v) => v < limit });
const atLeast = (limit: number, digits: number): Bound => ({
  text: `≥ ${number(limit, digits)}`,
  met: (v) => v >= limit,
});

/** A row of the table: the figure at a path (or worked out from the figures), with its target when it has one. */
function row(
  label: string,
  value: string | ((figures: Figures) => number | null),
  digits: number,
  bound: Bound | null = null,
): Target {
  return { label, value: typeof value === 'string' ? (f) => at(f, value) : value, bound, digits };
}

/** The list runs, by their rows: each is held to the same targets. */
const LIST_RUNS: Array<[rows: string, path: string]> = [
  ['20,000', 'lists20k'],
  ['100,000', 'lists'],
  ['1,000,000', 'lists.million'],
];

/** Every target of issue 33 (and of issue 18 before it), with the figures that explain them. */
const TARGETS: Target[] = [
  row('single check (sessions kept) ÷ floor, p50', 'api.ratio.p50', 2, atMost(1.1, 2)),
  row('single check (sessions kept) ÷ floor, p99', 'api.ratio.p99', 2, atMost(1.25, 2)),
  row('every check connecting ÷ floor, p50', 'api.cold.ratio.p50', 2, atMost(1.1, 2)),
  row('every check connecting ÷ floor, p99', 'api.cold.ratio.p99', 2, atMost(1.25, 2)),
  row('every check connecting ÷ STARTTLS floor, p50', 'api.cold.starttlsRatio.p50', 2, atMost(1.1, 2)),
  row('every check connecting ÷ STARTTLS floor, p99', 'api.cold.starttlsRatio.p99', 2),
  row('a host’s first check ÷ STARTTLS floor, p50', 'api.cold.firstContact.ratio', 2),
  row('single check p50 (ms)', 'api.uncached.p50', 1),
  row('every check connecting p50 (ms)', 'api.cold.uncached.p50', 1),
  row('SMTP floor p50 (ms)', 'api.floor.p50', 1),
  row('STARTTLS floor p50 (ms)', 'api.cold.starttlsFloor.p50', 1),
  row('cached check p50 (ms), one at a time', 'api.cached.p50', 2, below(2, 0)),
  row('cached checks/s, two gateways', 'api.cached.twoGateways', 0, atLeast(5000, 0)),
  row('cached checks/s, one gateway', 'api.cached.oneGateway', 0),
  ...LIST_RUNS.flatMap(([rows, path]) => [
    row(`${rows} rows: addresses/minute`, `${path}.addressesPerMinute`, 0, atLeast(150_000, 0)),
    row(`${rows} rows: SMTP sessions per address`, `${path}.sessionsPerAddress`, 4, below(0.02, 2)),
    row(`${rows} rows: largest process RSS (MB)`, (f) => largest(f, `${path}.peakRssMb`), 0, below(512, 0)),
    row(`${rows} rows: peak sessions at one MX host`, (f) => largest(f, `${path}.peakSessionsPerHost`), 0, {
      text: '≤ SMTP_MX_CONCURRENCY',
      met: (v, f) => v <= (at(f, `${path}.mxCap`) ?? -Infinity),
    }),
  ]),
  row(
    '1,000,000 rows ÷ 100,000 rows, addresses/minute',
    (f) => {
      const [million, hundred] = [at(f, 'lists.million.addressesPerMinute'), at(f, 'lists.addressesPerMinute')];
      return million !== null && hundred ? million / hundred : null;
    },
    2,
    atLeast(0.9, 2),
  ),
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
  const format = (value: number | null, digits: number) => (value === null ? 'not run' : number(value, digits));
  const rows = TARGETS.map(({ label, value, bound, digits }) => {
    const now = value(latest);
    const mark = bound && now !== null ? (bound.met(now, latest) ? ' ✓' : ' ✗') : '';
    const before = previous ? format(value(previous), digits) : '–';
    return `| ${label} | ${bound?.text ?? ''} | ${format(now, digits)}${mark} | ${before} |`;
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
