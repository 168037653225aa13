import { CALIBRATION_MAP } from './calibration-map';

/**
 * From the model's log-odds to a confidence that means what it says (API.md §3: among addresses
 * scored N, about N% are real mailboxes). The signals' weights rank addresses; how often an address
 * with a given sum really exists is an empirical question, answered by isotonic regression (pool
 * adjacent violators) on a labelled population: the lab's `fitting` population
 * (test/bench/scoring-populations.ts, names of its own, half unknown to names.ts), never on the
 * populations the calibration is judged on. The fitted map is data (calibration-map.ts); refit it
 * with `npm run bench:calibrate -- --write`, which prints the reliability tables it then gives.
 *
 * Between the fitted points the map is linear in log-odds, so it is strictly increasing and keeps
 * the ranking (and AUC) of the log-odds; beyond the outermost points it runs on, flattening, to
 * TAIL log-odds further out, where it reaches the outermost shares a confidence can take.
 */
export type CalibrationMap = ReadonlyArray<readonly [logit: number, percent: number]>;

/** Confidence never says "certainly" either way: a catch-all domain can always surprise. */
export const FLOOR = 1;
export const CEILING = 99;
const TAIL = 6;

export function calibrate(logit: number, map: CalibrationMap = CALIBRATION_MAP): number {
  const first = map[0];
  const last = map[map.length - 1];
  const points: CalibrationMap = [[first[0] - TAIL, FLOOR], ...map, [last[0] + TAIL, CEILING]];
  if (logit <= points[0][0]) return FLOOR;
  if (logit >= points[points.length - 1][0]) return CEILING;
  const upper = points.findIndex(([x]) => x >= logit);
  const [x0, y0] = points[upper - 1];
  const [x1, y1] = points[upper];
  return x1 === x0 ? y1 : y0 + ((y1 - y0) * (logit - x0)) / (x1 - x0);
}

/**
 * Isotonic regression of `real` on `logit`: the labelled points sorted by log-odds (equal log-odds
 * always together), pooled until the share of real ones rises from pool to pool (pool adjacent
 * violators), each pool at least MIN_POOL points so that no share rests on a handful. Each pool
 * becomes one point of the map: its mean log-odds and its share of real mailboxes (with half a
 * point of each kind added, so that no pool says 0 or 100), between FLOOR and CEILING, rounded.
 */
const MIN_POOL = 100;

interface Pool {
  sum: number;
  real: number;
  n: number;
}

const merge = (a: Pool, b: Pool): Pool => ({ sum: a.sum + b.sum, real: a.real + b.real, n: a.n + b.n });
const share = (pool: Pool) => pool.real / pool.n;

export function fitCalibration(labelled: ReadonlyArray<{ logit: number; real: boolean }>): CalibrationMap {
  const sorted = [...labelled].sort((a, b) => a.logit - b.logit);
  const pools: Pool[] = [];
  // A pool is final once it is big enough and its share is above the one before it.
  const settle = (final: boolean) => {
    while (pools.length > 1) {
      const last = pools[pools.length - 1];
      const before = pools[pools.length - 2];
      const small = before.n < MIN_POOL || (final && last.n < MIN_POOL);
      if (share(before) < share(last) && !small) break;
      pools.splice(pools.length - 2, 2, merge(before, last));
    }
  };
  for (let i = 0; i < sorted.length; ) {
    const pool: Pool = { sum: 0, real: 0, n: 0 };
    for (const logit = sorted[i].logit; i < sorted.length && sorted[i].logit === logit; i++) {
      pool.sum += logit;
      pool.real += sorted[i].real ? 1 : 0;
      pool.n++;
    }
    pools.push(pool);
    settle(false);
  }
  settle(true);
  return pools.map((pool) => {
    const percent = (100 * (pool.real + 0.5)) / (pool.n + 1);
    return [Math.round((pool.sum / pool.n) * 100) / 100, Math.round(Math.min(CEILING, Math.max(FLOOR, percent)) * 10) / 10] as const;
  });
}
