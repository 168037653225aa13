import { fitMaps } from '../../../../test/bench/scoring-calibrate';
import { HELD_OUT, population, type PopulationName } from '../../../../test/bench/scoring-populations';
import { outcome, replay } from '../../../../test/bench/scoring-replay';
import { auc, ceiling, reliability, rising, TOLERANCE, type Band } from '../../../../test/bench/scoring-report';
import { calibrate, CEILING, fitCalibration, FLOOR, REGIMES, regimeOf } from './calibration';
import { CALIBRATION_MAPS } from './calibration-map';

/**
 * docs/api.md#credits: among catch-all addresses scored N, about N% are real. Judged on the seeded lab
 * populations, replayed in process exactly as the scoring bench checks them (test/bench/scoring-replay.ts);
 * the maps are fitted on the `fitting` population's FITTING_SEEDS only, judged on the HELD_OUT draws.
 * Bands: 0–19 … 80–100, label = midpoint, within ±10 points, bands under 25 addresses not judged
 * (test/bench/scoring-report.ts).
 */
const describeBands = (bands: Band[]) =>
  bands.map((band) => `${band.low}–${band.high}: n ${band.n}, ${band.observed.toFixed(0)}%`);

describe('the calibration maps', () => {
  const grid = Array.from({ length: 401 }, (_, index) => -20 + index / 10);

  it.each(REGIMES)(
    '%s: monotonic, within 1..99, strictly rising between its outermost points, flat beyond them',
    (regime) => {
      const map = CALIBRATION_MAPS[regime];
      const values = grid.map((logit) => calibrate(logit, map));
      expect(Math.min(...values)).toBeGreaterThanOrEqual(FLOOR);
      expect(Math.max(...values)).toBeLessThanOrEqual(CEILING);
      values.slice(1).forEach((value, index) => {
        expect(value).toBeGreaterThanOrEqual(values[index]);
        const inside = grid[index] >= map[0][0] && grid[index + 1] <= map[map.length - 1][0];
        if (inside && map[0][1] < map[map.length - 1][1]) expect(value).toBeGreaterThan(values[index]);
      });
      expect(calibrate(-100, map)).toBe(map[0][1]);
      expect(calibrate(100, map)).toBe(map[map.length - 1][1]);
      for (const [x, y] of map) expect(calibrate(x, map)).toBeCloseTo(y, 6);
    },
  );

  it('are what the fit on the fitting population gives (refit with npm run bench:calibrate -- --write)', () => {
    expect(fitMaps()).toEqual(CALIBRATION_MAPS);
  });

  it('pool violators: a share that falls with the log-odds is averaged away, the pool spanning its log-odds', () => {
    const labelled = [
      ...Array.from({ length: 100 }, (_, i) => ({ logit: -2, real: i < 10 })),
      ...Array.from({ length: 100 }, (_, i) => ({ logit: -1, real: i < 60 })),
      ...Array.from({ length: 100 }, (_, i) => ({ logit: 0, real: i < 40 })),
      ...Array.from({ length: 100 }, (_, i) => ({ logit: 1, real: i < 90 })),
    ];
    const map = fitCalibration(labelled);
    expect(map.map(([x]) => x)).toEqual([-2, -1, 0, 1]);
    map.slice(1).forEach(([, y], index) => expect(y).toBeGreaterThan(map[index][1]));
    // The pooled -1 and 0 hold 100 real of 200: the map says about 50 across them.
    expect((map[1][1] + map[2][1]) / 2).toBeCloseTo(50, 0);
  });

  it('calibrates a flawed address apart, unless something vouches for it; a learned pattern apart from the static signals', () => {
    expect(regimeOf([{ signal: 'pattern_delivery_rate' }, { signal: 'misspelt_name' }])).toBe('flawed');
    expect(regimeOf([{ signal: 'reported_bounced' }])).toBe('flawed');
    expect(regimeOf([{ signal: 'random_looking' }, { signal: 'gravatar' }])).toBe('static');
    expect(regimeOf([{ signal: 'pattern_delivery_rate' }])).toBe('reported');
    expect(regimeOf([{ signal: 'junk_word' }, { signal: 'reported_delivered' }])).toBe('delivered');
    expect(regimeOf([{ signal: 'learned_pattern' }, { signal: 'gravatar' }])).toBe('learned');
    expect(regimeOf([{ signal: 'name_pattern' }, { signal: 'authentication' }])).toBe('static');
  });
});

/**
 * Issue 32's target, not met yet on every draw: before feedback the domain's pattern rests on avatars and
 * the local parts queried there (domain-model.ts queriedPattern), typos on the name lists, the names
 * learned and the queried local parts (typo_of_queried). The held-out draws still short of 0.02 of the
 * ceiling without feedback, each with its gap (ceiling − AUC, rounded up to 0.001). What is left is
 * mostly the first addresses checked at a domain (nothing is known of its pattern yet: a guess in
 * another pattern ranks with its staff), typos checked before what they misspell, and one-word
 * patterns that read either way (`wardr`: firstl or lastf?). docs/benchmarks.md has the figures.
 */
const SHORT_BEFORE_FEEDBACK: ReadonlyArray<readonly [population: PopulationName, seed: number, gap: number]> = [
  ['second', 7130519, 0.03], // 0.0292
  ['second', 7130521, 0.036], // 0.0355
];

/**
 * Each held-out draw, in both rounds (before feedback: everything; after: the held-out half), beside
 * its ceiling: the best AUC any score can reach on it (scoring-report.ts `ceiling`: an oracle that
 * knows each domain's pattern, the avatars and every made-up kind, but not which real-looking names
 * in the domain's pattern exist). The figures are printed; the test fails on what they must meet.
 */
describe.each(HELD_OUT)('confidence that means what it says on the held-out %s population, seed %d', (name, seed) => {
  const { before, after } = replay(population(name, { seed }));
  const rounds = [
    ['without feedback', outcome(before)],
    ['after feedback', outcome(after)],
  ] as const;
  const figures = rounds.map(([round, scored]) => {
    const bands = reliability(scored);
    return { round, auc: auc(scored), ceiling: ceiling(scored), bands };
  });

  beforeAll(() => {
    const lines = figures.flatMap(({ round, auc, ceiling, bands }) => [
      `${name} seed ${seed}, ${round}: AUC ${auc.toFixed(3)}, ceiling ${ceiling.toFixed(3)} (gap ${(ceiling - auc).toFixed(3)})`,
      ...bands.map(
        (band) =>
          `  ${band.low}–${band.high}: n ${band.n}, mean confidence ${band.meanConfidence.toFixed(0)}, real ${band.observed.toFixed(0)}%`,
      ),
    ]);
    process.stdout.write(lines.join('\n') + '\n');
  });

  it.each(figures.map((figure) => [figure.round, figure] as const))(
    '%s: every band rises over the one below, within ±10 of its label, its mean confidence within ±10 of its share of real mailboxes',
    (_round, { bands }) => {
      expect(rising(bands)).toBe(true);
      expect(describeBands(bands.filter((band) => !band.met))).toEqual([]);
      expect(
        describeBands(bands.filter((band) => band.judged && Math.abs(band.meanConfidence - band.observed) > TOLERANCE)),
      ).toEqual([]);
    },
  );

  it('after feedback, ranks real mailboxes above made-up ones within 0.02 of the ceiling', () => {
    const { auc: reached, ceiling: best } = figures[1];
    expect(reached).toBeGreaterThanOrEqual(best - 0.02);
  });

  const recorded = SHORT_BEFORE_FEEDBACK.find(([population, draw]) => population === name && draw === seed)?.[2];
  const target = 'without feedback, ranks real mailboxes above made-up ones within 0.02 of the ceiling';
  const withinTarget = () => {
    const { auc: reached, ceiling: best } = figures[0];
    expect(reached).toBeGreaterThanOrEqual(best - 0.02);
  };
  if (recorded === undefined) it(target, withinTarget);
  else {
    // A draw listed short: `it.failing` fails once it meets the target (the list is then out of date)…
    it.failing(`${target} (listed short: gap ${recorded})`, withinTarget);
    // …and it may not fall further behind than recorded (the replay is deterministic: rounding up is the slack).
    it(`without feedback, no further from the ceiling than the ${recorded} recorded`, () => {
      const { auc: reached, ceiling: best } = figures[0];
      expect(best - reached).toBeLessThanOrEqual(recorded);
    });
  }
});
