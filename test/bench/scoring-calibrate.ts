import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fitCalibration, REGIMES, type CalibrationMap, type Regime } from '@mailguard/scoring';
import { population, type PopulationName } from './scoring-populations';
import { replay, type Scored } from './scoring-replay';
import { auc, ceiling, reliability, reliabilityTable, rising, withoutLookalikes } from './scoring-report';

/**
 * `npm run bench:calibrate`: refits the calibration maps (libs/checks/scoring/src/calibration.ts) on the
 * `fitting` population — both rounds, before and after feedback, since both reach customers; each
 * map on the addresses of its regime (whether reports bear on them) — and prints the maps and, for
 * every population, the AUC and the reliability table the stored maps give
 * (in process: the scoring bench's checks replayed without the gateway, test/bench/scoring-replay.ts).
 * With `--write` it stores the new maps in libs/checks/scoring/src/calibration-map.ts first (then rebuild
 * and run it again to see the tables with the new maps). Judge the maps on `bench` and `second` only;
 * `BENCH_SEED=n` judges them on those populations drawn with another seed.
 */
const outcome = (scored: Scored[]) =>
  scored.map(({ address, confidence }) => ({
    real: address.real,
    confidence,
    kind: address.kind,
    avatar: address.avatar,
  }));

function summary(name: PopulationName): string[] {
  // BENCH_SEED draws the judged populations again with another seed (the maps stay fitted on `fitting`).
  const seed = name !== 'fitting' && process.env.BENCH_SEED ? Number(process.env.BENCH_SEED) : undefined;
  const { before, after } = replay(population(name, seed === undefined ? {} : { seed }));
  const lines = [
    `${name}${seed === undefined ? '' : ` (seed ${seed})`}: ${before.length} addresses (${before.filter((s) => s.address.real).length} real), ${after.length} held out after feedback`,
  ];
  for (const [round, scored] of [
    ['without feedback (all)', outcome(before)],
    ['after feedback (held-out half)', outcome(after)],
  ] as const) {
    const bands = reliability(scored);
    lines.push(
      `  ${round}: AUC ${auc(scored).toFixed(3)} (best any score ${ceiling(scored).toFixed(3)}), without lookalikes ${auc(withoutLookalikes(scored)).toFixed(3)};` +
        ` bands ${bands.every((band) => band.met) ? 'all within ±10' : 'NOT all within ±10'}, ${rising(bands) ? 'rising' : 'NOT rising'}`,
      ...reliabilityTable(bands),
    );
  }
  return lines;
}

/** The maps the fitting population gives, one per regime: what calibration-map.ts must hold. */
export function fitMaps(): Record<Regime, CalibrationMap> {
  const { before, after } = replay(population('fitting'));
  const fit = (regime: Regime) =>
    fitCalibration(
      [...before, ...after]
        .filter((scored) => scored.regime === regime)
        .map(({ address, logit }) => ({ logit, real: address.real })),
    );
  return Object.fromEntries(REGIMES.map((regime) => [regime, fit(regime)])) as Record<Regime, CalibrationMap>;
}

function main(): void {
  const maps = fitMaps();
  const lines = ['calibration maps fitted on the fitting population (log-odds → % real):'];
  for (const [regime, map] of Object.entries(maps))
    lines.push(`  ${regime}: ${map.map(([x, y]) => `${x} → ${y}`).join(', ')}`);
  if (process.argv.includes('--write')) {
    const file = join(process.cwd(), 'libs/checks/scoring/src/calibration-map.ts');
    const source = [
      '/**',
      ' * The calibration maps (calibration.ts): log-odds → percent of real mailboxes, one per regime, fitted',
      ' * by `npm run bench:calibrate -- --write` on the `fitting` population (test/bench/scoring-populations.ts).',
      ' * Generated: refit rather than edit.',
      ' */',
      "import type { CalibrationMap, Regime } from './calibration';",
      '',
      'export const CALIBRATION_MAPS: Record<Regime, CalibrationMap> = {',
      ...Object.entries(maps).flatMap(([regime, map]) => [
        `  ${regime}: [`,
        ...map.map(([x, y]) => `    [${x}, ${y}],`),
        '  ],',
      ]),
      '};',
      '',
    ].join('\n');
    writeFileSync(file, source);
    lines.push(`  written to ${file}`);
  }
  for (const name of ['bench', 'second', 'fitting'] as const) lines.push(...summary(name));
  process.stdout.write(lines.join('\n') + '\n');
}

if (require.main === module) main();
