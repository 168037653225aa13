import { runFuzz, type FuzzReport } from '../fuzz/harness';

/**
 * The short deterministic form of `npm run fuzz` (issue 15): a few thousand hostile inputs from a
 * fixed seed, and the regression corpus, through every public surface of a gateway process and the
 * CLI, against the mail lab. Any failure prints the input that caused it; the same seed replays it
 * with `npm run fuzz -- --inputs 3000 --seed 15`.
 */
jest.setTimeout(300_000);

let report: FuzzReport;

beforeAll(async () => {
  report = await runFuzz({ inputs: 3_000, seed: 15, lanes: 6 });
  process.stdout.write(`${report.figures}\n`);
});

it('no 5xx, no process exit, no answer past the deadline + 1 s, no refusal charged, every error {error, code}, clean SMTP sockets', () => {
  expect(report.failures).toEqual([]);
});

it('leaves no upload staged and no more descriptors open than before the inputs', () => {
  expect(report.held.stagedUploads).toBe(0);
  expect(report.held.descriptors.after).toBeLessThanOrEqual(report.held.descriptors.before);
});

it('sends every surface its inputs, and most of them past the doors (keys, rate limits) to the handlers', () => {
  const counted = Object.values(report.bySurface).reduce((sum, surface) => sum + surface.inputs, 0);
  expect(counted).toBe(3_000);
  for (const surface of [
    'single',
    'batch',
    'lists',
    'widget-keyless',
    'widget-keyed',
    'widget-settings',
    'signup',
    'keys',
    'finder',
    'domain',
    'credits',
    'headers',
    'nulls',
    'mcp-nulls',
    'corpus',
    'cli',
  ]) {
    expect(report.bySurface[surface]?.inputs).toBeGreaterThan(0);
  }
  expect(report.stoppedAtTheDoor).toBeLessThan(counted * 0.05);
  // Inputs that pass every check are served too, not only refused.
  expect(report.statuses['200']).toBeGreaterThan(counted * 0.1);
  expect(report.smtp.commands).toBeGreaterThan(0);
});
