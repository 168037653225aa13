import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { calibrate, fitCalibration } from '@mailguard/scoring';
import { population, type PopulationName } from './scoring-populations';
import { replay, type Scored } from './scoring-replay';
import { auc, ceiling, reliability, reliabilityTable, rising, withoutLookalikes } from './scoring-report';

/**
 * `npm run bench:calibrate`: refits the calibration map (libs/scoring/src/calibration.ts) on the
 * `fitting` population — both rounds, before and after feedback, since both reach customers — and
 * prints the map and, for every population, the AUC and the reliability table the stored map gives
 * (in process: the scoring bench's checks replayed without the gateway, test/bench/scoring-replay.ts).
 * With `--write` it stores the new map in libs/scoring/src/calibration-map.ts first (then rebuild
 * and run it again to see the tables with the new map). Judge the map on `bench` and `second` only.
 */
const outcome = (scored: Scored[]) => scored.map(({ address, confidence }) => ({ real: address.real, confidence, kind: address.kind, avatar: address.avatar }));

function summary(name: PopulationName): string[] {
  const { before, after } = replay(population(name));
  const lines = [`${name}: ${before.length} addresses (${before.filter((s) => s.address.real).length} real), ${after.length} held out after feedback`];
  for (const [round, scored] of [['without feedback (all)', outcome(before)], ['after feedback (held-out half)', outcome(after)]] as const) {
    const bands = reliability(scored);
    lines.push(
      `  ${round}: AUC ${auc(scored).toFixed(3)} (best any score ${ceiling(scored).toFixed(3)}), without lookalikes ${auc(withoutLookalikes(scored)).toFixed(3)};` +
        ` bands ${bands.every((band) => band.met) ? 'all within ±10' : 'NOT all within ±10'}, ${rising(bands) ? 'rising' : 'NOT rising'}`,
      ...reliabilityTable(bands),
    );
  }
  return lines;
}

function main(): void {
  const fitting = replay(population('fitting'));
  const map = fitCalibration([...fitting.before, ...fitting.after].map(({ address, logit }) => ({ logit, real: address.real })));
  const lines = ['calibration map fitted on the fitting population (log-odds → % real):', `  ${map.map(([x, y]) => `${x} → ${y}`).join(', ')}`];
  if (process.argv.includes('--write')) {
    const file = join(process.cwd(), 'libs/scoring/src/calibration-map.ts');
    const source = [
      '/**',
      ' * The calibration map (calibration.ts): log-odds → percent of real mailboxes, fitted by',
      ' * `npm run bench:calibrate -- --write` on the `fitting` population (test/bench/scoring-populations.ts).',
      ' * Generated: refit rather than edit.',
      ' */',
      'export const CALIBRATION_MAP: ReadonlyArray<readonly [number, number]> = [',
      ...map.map(([x, y]) => `  [${x}, ${y}],`),
      '];',
      '',
    ].join('\n');
    writeFileSync(file, source);
    lines.push(`  written to ${file}`);
  }
  lines.push(`stored map at log-odds -4, -2, 0, 2, 4: ${[-4, -2, 0, 2, 4].map((x) => calibrate(x).toFixed(0)).join(', ')}`);
  for (const name of ['bench', 'second', 'fitting'] as const) lines.push(...summary(name));
  process.stdout.write(lines.join('\n') + '\n');
}

main();
