import { population } from '../../../test/bench/scoring-populations';
import { replay, type Scored } from '../../../test/bench/scoring-replay';
import { auc, reliability, rising, type Band } from '../../../test/bench/scoring-report';
import { calibrate, CEILING, fitCalibration, FLOOR } from './calibration';
import { CALIBRATION_MAP } from './calibration-map';

/**
 * API.md §3: among catch-all addresses scored N, about N% are real. Judged on the seeded lab
 * populations, replayed in process exactly as the scoring bench checks them (test/bench/scoring-replay.ts);
 * the map is fitted on the `fitting` population only. Bands: 0–19 … 80–100, label = midpoint,
 * within ±10 points, bands under 25 addresses not judged (test/bench/scoring-report.ts).
 */
const outcome = (scored: Scored[]) => scored.map(({ address, confidence }) => ({ real: address.real, confidence }));
const describeBands = (bands: Band[]) => bands.map((band) => `${band.low}–${band.high}: n ${band.n}, ${band.observed.toFixed(0)}%`);

describe('the calibration map', () => {
  const grid = Array.from({ length: 401 }, (_, index) => -20 + index / 10);

  it('is monotonic and maps every log-odds into 1..99, strictly rising between its floor and ceiling', () => {
    const values = grid.map((logit) => calibrate(logit));
    expect(Math.min(...values)).toBeGreaterThanOrEqual(FLOOR);
    expect(Math.max(...values)).toBeLessThanOrEqual(CEILING);
    values.slice(1).forEach((value, index) => {
      expect(value).toBeGreaterThanOrEqual(values[index]);
      if (values[index] > FLOOR && value < CEILING) expect(value).toBeGreaterThan(values[index]);
    });
    for (const [x, y] of CALIBRATION_MAP) expect(calibrate(x)).toBeCloseTo(y, 6);
  });

  it('is what the fit on the fitting population gives (refit with npm run bench:calibrate -- --write)', () => {
    const { before, after } = replay(population('fitting'));
    expect(fitCalibration([...before, ...after].map(({ address, logit }) => ({ logit, real: address.real })))).toEqual(CALIBRATION_MAP);
  });

  it('pools violators: a share that falls with the log-odds is averaged away', () => {
    const labelled = [
      ...Array.from({ length: 100 }, (_, i) => ({ logit: -2, real: i < 10 })),
      ...Array.from({ length: 100 }, (_, i) => ({ logit: -1, real: i < 60 })),
      ...Array.from({ length: 100 }, (_, i) => ({ logit: 0, real: i < 40 })),
      ...Array.from({ length: 100 }, (_, i) => ({ logit: 1, real: i < 90 })),
    ];
    const map = fitCalibration(labelled);
    expect(map.map(([x]) => x)).toEqual([-2, -0.5, 1]);
    map.slice(1).forEach(([, y], index) => expect(y).toBeGreaterThan(map[index][1]));
  });
});

describe('confidence that means what it says, on populations the map was not fitted on', () => {
  const bench = replay(population('bench'));
  const second = replay(population('second'));

  it('second population, without feedback: every band within ±10 of its label, rising', () => {
    const bands = reliability(outcome(second.before));
    expect(describeBands(bands.filter((band) => !band.met))).toEqual([]);
    expect(rising(bands)).toBe(true);
  });

  it('bench population, after feedback: every band within ±10 of its label, rising', () => {
    const bands = reliability(outcome(bench.after));
    expect(describeBands(bands.filter((band) => !band.met))).toEqual([]);
    expect(rising(bands)).toBe(true);
  });

  it('bench population, without feedback: the bands rise', () => {
    expect(rising(reliability(outcome(bench.before)))).toBe(true);
  });

  it('ranks real mailboxes above made-up ones: AUC ≥ 0.90 on the bench population (both rounds) and on the second after feedback', () => {
    expect(auc(outcome(bench.before))).toBeGreaterThanOrEqual(0.9);
    expect(auc(outcome(bench.after))).toBeGreaterThanOrEqual(0.9);
    expect(auc(outcome(second.after))).toBeGreaterThanOrEqual(0.9);
  });
});
