import { runFuzz } from './harness';

/**
 * `npm run fuzz [-- --inputs N --seed S --lanes L]`: the fuzz of issue 15 against a gateway
 * process and the mail lab (needs the test Postgres). Prints its figures and every failure found
 * (each replays with the same seed); exits 1 when there is one.
 */
function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  if (at < 0) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!Number.isInteger(value) || value < 0)
    throw new Error(`--${name} takes a whole number (got ${process.argv[at + 1]})`);
  return value;
}

const USAGE = `npm run fuzz [-- options]
  --inputs N   hostile inputs to send (default 20000; 2% of them addresses given to the CLI)
  --seed S     the generator's seed: the same seed replays the same inputs (default 1)
  --lanes L    requests in flight at once, one account each (default 8)
Prints figures by surface, the gateway's staged uploads and descriptors once settled, and every failure; exits 1 on any.`;

async function main(): Promise<void> {
  if (process.argv.includes('--help')) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const report = await runFuzz({
    inputs: option('inputs', 20_000),
    seed: option('seed', 1),
    lanes: option('lanes', 8),
    log: (line) => process.stdout.write(`${line}\n`),
  });
  process.stdout.write(`${report.figures}\n`);
  if (report.failures.length > 0) process.exitCode = 1;
}

main().catch((error: unknown) => {
  process.stderr.write(`fuzz: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
