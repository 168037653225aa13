/**
 * From the model's log-odds to a confidence that means what it says (docs/api.md#credits: among addresses
 * scored N, about N% are real mailboxes). The signals' weights rank addresses; how often an address
 * with a given sum really exists is an empirical question, answered by isotonic regression (pool
 * adjacent violators) on a labelled population: the lab's `fitting` population drawn with each of
 * FITTING_SEEDS (test/bench/scoring-populations.ts, names of its own, half unknown to names.ts), never
 * on the HELD_OUT draws the calibration is judged on. The fitted maps are data (calibration-map.ts); refit
 * them with `npm run bench:calibrate -- --write`, which prints the reliability tables they then give.
 *
 * One map per regime, each fitted on the fitting population's addresses of that regime, because
 * the same sum means different things depending on what it rests on:
 * - `delivered`: the address itself was reported delivered or is known to exist (verified, avatar);
 * - `flawed`: the address itself carries a mark of being made up (a junk word, a random string, a
 *   misspelt name, a typo of a known address) or was itself reported bounced, and no avatar vouches
 *   for it. Such an address is almost never real whatever else speaks for it (its domain's good
 *   delivery rate, its name shape), which a sum of weights cannot say;
 * - `reported`: reports on other addresses of its pattern at the domain bear on it (their delivery
 *   rate), an observed rate that is sharper than the same log-odds built from static signals;
 * - `learned`: the domain's pattern is learned (`learned_pattern`): how the address stands against
 *   the addresses known to exist there, a sharper reading than its name shape, on a scale of its own
 *   (a first.last address at a first.last domain earns at most ln(1 / 0.32) ≈ 1.1, less than the
 *   static +1.6 for the same shape where nothing is known, yet it is likelier real). On one map the
 *   two were ranked by their sums, and a staff member at a learned domain fell below a guess in
 *   another pattern at a domain nothing was known about;
 * - `static`: the static signals only (nothing is known about the domain's addresses).
 *
 * Between the fitted points the map is linear in log-odds, so it is strictly increasing there and
 * keeps the ranking (and AUC) of the log-odds; beyond the outermost points it stays at their shares
 * (as isotonic regression does: nothing was observed out there to say more).
 */
export type CalibrationMap = ReadonlyArray<readonly [logit: number, percent: number]>;
export const REGIMES = ['static', 'learned', 'reported', 'flawed', 'delivered'] as const;
export type Regime = (typeof REGIMES)[number];

/** The signals by which reports on other addresses bear on an address (domain-model.ts). */
const REPORTED = new Set(['pattern_delivery_rate']);
/** The signal by which the domain's known addresses bear on an address's pattern (domain-model.ts). */
const LEARNED = new Set(['learned_pattern']);
/** The marks of a made-up address (local-part.ts, domain-model.ts), and its own bounce. */
const FLAWS = new Set([
  'junk_word',
  'random_looking',
  'misspelt_name',
  'long_unstructured',
  'typo_of_known',
  'reported_bounced',
]);
/** What vouches for the address itself: a flaw does not outweigh it (`x7g2k9` with an avatar is someone's). */
const VOUCHED = new Set(['gravatar', 'reported_delivered']);

export function regimeOf(signals: ReadonlyArray<{ signal: string }>): Regime {
  const has = (set: Set<string>) => signals.some(({ signal }) => set.has(signal));
  if (signals.some(({ signal }) => signal === 'reported_delivered')) return 'delivered';
  if (has(FLAWS) && !has(VOUCHED)) return 'flawed';
  if (has(REPORTED)) return 'reported';
  return has(LEARNED) ? 'learned' : 'static';
}

/** Confidence never says "certainly" either way: a catch-all domain can always surprise. */
export const FLOOR = 1;
export const CEILING = 99;

export function calibrate(logit: number, map: CalibrationMap): number {
  const upper = map.findIndex(([x]) => x >= logit);
  if (upper === 0) return map[0][1];
  if (upper === -1) return map[map.length - 1][1];
  const [x0, y0] = map[upper - 1];
  const [x1, y1] = map[upper];
  return y0 + ((y1 - y0) * (logit - x0)) / (x1 - x0);
}

/**
 * Isotonic regression of `real` on `logit`: the labelled points sorted by log-odds (equal log-odds
 * always together), pooled until the share of real ones rises from pool to pool (pool adjacent
 * violators), each pool at least MIN_POOL points so that no share rests on a handful. Each pool's
 * share of real mailboxes (with half a point of each kind added, so that no pool says 0 or 100) is
 * what the map says across the pool's log-odds: a pool spans from its lowest to its highest log-odds,
 * where the map rises by a quarter of the step to the pool below and above (so that it is strictly
 * increasing, and the pool's addresses average its share). Between pools the map climbs from one to
 * the next. Shares between FLOOR and CEILING, rounded.
 */
const MIN_POOL = 50;

interface Pool {
  low: number;
  high: number;
  real: number;
  n: number;
}

const merge = (a: Pool, b: Pool): Pool => ({ low: a.low, high: b.high, real: a.real + b.real, n: a.n + b.n });
const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;
/** What the map says across a pool: its share, as stored (so that pools the floor, the ceiling or rounding make equal are pooled too). */
const percent = (pool: Pool) => round(Math.min(CEILING, Math.max(FLOOR, (100 * (pool.real + 0.5)) / (pool.n + 1))), 1);

export function fitCalibration(labelled: ReadonlyArray<{ logit: number; real: boolean }>): CalibrationMap {
  // Weights have two decimals: sums that differ only by floating-point error are one log-odds.
  const sorted = labelled
    .map(({ logit, real }) => ({ logit: round(logit, 2), real }))
    .sort((a, b) => a.logit - b.logit);
  const pools: Pool[] = [];
  // A pool is final once it is big enough and its share is above the one before it.
  const settle = (final: boolean) => {
    while (pools.length > 1) {
      const last = pools[pools.length - 1];
      const before = pools[pools.length - 2];
      const small = before.n < MIN_POOL || (final && last.n < MIN_POOL);
      if (percent(before) < percent(last) && !small) break;
      pools.splice(pools.length - 2, 2, merge(before, last));
    }
  };
  for (let i = 0; i < sorted.length;) {
    const logit = sorted[i].logit;
    const pool: Pool = { low: logit, high: logit, real: 0, n: 0 };
    for (; i < sorted.length && sorted[i].logit === logit; i++) {
      pool.real += sorted[i].real ? 1 : 0;
      pool.n++;
    }
    pools.push(pool);
    settle(false);
  }
  settle(true);
  const shares = pools.map(percent);
  return pools.flatMap((pool, index): Array<readonly [number, number]> => {
    const y = shares[index];
    if (pool.low === pool.high) return [[round(pool.low, 2), y]];
    const below = index > 0 ? (y - shares[index - 1]) / 4 : 0;
    const above = index < pools.length - 1 ? (shares[index + 1] - y) / 4 : 0;
    return [
      [round(pool.low, 2), round(y - below, 1)],
      [round(pool.high, 2), round(y + above, 1)],
    ];
  });
}
