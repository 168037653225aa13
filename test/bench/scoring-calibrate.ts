import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fitCalibration, REGIMES, type CalibrationMap, type Regime } from '@mailguard/scoring';
import { FITTING_SEEDS, HELD_OUT, population, type PopulationName } from './scoring-populations';
import { outcome, replay } from './scoring-replay';
import { auc, ceiling, reliability, reliabilityTable, rising, withoutLookalikes } from './scoring-report';

/**
 * `npm run bench:calibrate`: refits the calibration maps (libs/checks/scoring/src/calibration.ts) on the
 * `fitting` population drawn with each of FITTING_SEEDS — both rounds, before and after feedback, since both reach customers; each
 * map on the addresses of its regime (whether reports bear on them) — and prints the maps and, for
 * every population, the AUC and the reliability table the stored maps give
 * (in process: the scoring bench's checks replayed without the gateway, test/bench/scoring-replay.ts).
 * With `--write` it stores the new maps in libs/checks/scoring/src/calibration-map.ts first (then rebuild
 * and run it again to see the tables with the new maps). Judge the maps on the HELD_OUT draws only
 * (each with its ceiling: the best AUC any score can reach on it); `BENCH_SEED=n` judges them on
 * `bench` and `second` drawn with another seed.
 */

function summary(name: PopulationName, seed: number): string[] {
  const { before, after } = replay(population(name, { seed }));
  const lines = [
    `${name} (seed ${seed}): ${before.length} addresses (${before.filter((s) => s.address.real).length} real), ${after.length} held out after feedback`,
  ];
  for (const [round, scored] of [
    ['without feedback (all)', outcome(before)],
    ['after feedback (held-out half)', outcome(after)],
  ] as const) {
    const bands = reliability(scored);
    lines.push(
      `  ${round}: AUC ${auc(scored).toFixed(3)} (ceiling ${ceiling(scored).toFixed(3)}), without lookalikes ${auc(withoutLookalikes(scored)).toFixed(3)};` +
        ` bands ${bands.every((band) => band.met) ? 'all within ±10' : 'NOT all within ±10'}, ${rising(bands) ? 'rising' : 'NOT rising'}`,
      ...reliabilityTable(bands),
    );
  }
  return lines;
}

/** The maps the fitting seeds give, one per regime (both rounds of each draw): what calibration-map.ts must hold. */
export function fitMaps(): Record<Regime, CalibrationMap> {
  const scored = FITTING_SEEDS.flatMap((seed) => {
    const { before, after } = replay(population('fitting', { seed }));
    return [...before, ...after];
  });
  const fit = (regime: Regime) =>
    fitCalibration(
      scored.filter((item) => item.regime === regime).map(({ address, logit }) => ({ logit, real: address.real })),
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
      " * by `npm run bench:calibrate -- --write` on the `fitting` population's FITTING_SEEDS (test/bench/scoring-populations.ts).",
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
  // BENCH_SEED judges the maps on the held-out populations drawn with that seed instead.
  const judged = process.env.BENCH_SEED
    ? (['bench', 'second'] as const).map((name) => [name, Number(process.env.BENCH_SEED)] as const)
    : HELD_OUT;
  for (const [name, seed] of [...FITTING_SEEDS.map((seed) => ['fitting', seed] as const), ...judged])
    lines.push(...summary(name, seed));
  process.stdout.write(lines.join('\n') + '\n');
}

if (require.main === module) main();
