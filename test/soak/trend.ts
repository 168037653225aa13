/**
 * Whether a per-cycle series (memory, event-loop delay) grows beyond noise. Garbage collection
 * and JIT warm-up make single readings jump, so the first cycles are left out and the judgement
 * rests on medians and a least-squares slope, each with generous room.
 */

export interface GrowthRule {
  /** Cycles left out at the start (warm-up: caches, JIT, connection pools filling). */
  warmup: number;
  /** Growth allowed between the first and last third's medians: a ratio of the first... */
  ratio: number;
  /** ...plus an absolute allowance in the series' unit. */
  slack: number;
}

export interface Growth {
  /** Median of the first third after warm-up, of the last third, and the least-squares slope per cycle. */
  first: number;
  last: number;
  slope: number;
  /** Why the series grows, or null when it does not. */
  verdict: string | null;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** Least-squares slope of `values` over their indexes. */
export function slope(values: number[]): number {
  const n = values.length;
  if (n < 2) return 0;
  const meanX = (n - 1) / 2;
  const meanY = values.reduce((sum, value) => sum + value, 0) / n;
  let numerator = 0;
  let denominator = 0;
  values.forEach((value, x) => {
    numerator += (x - meanX) * (value - meanY);
    denominator += (x - meanX) ** 2;
  });
  return numerator / denominator;
}

/**
 * Judges a series once it has at least six cycles after warm-up (fewer say nothing about a trend):
 * it grows when the fitted line rises across the run by more than `ratio` and `slack` allow over
 * the first third's median, AND the last third's median is above the first's by at least half that
 * allowance — so that a late spike alone (which tilts the line) is not growth, nor is a step up
 * that then stays flat (a cache filled once).
 */
export function judgeGrowth(series: number[], rule: GrowthRule): Growth | null {
  const values = series.slice(rule.warmup);
  if (values.length < 6) return null;
  const third = Math.floor(values.length / 3);
  const first = median(values.slice(0, third));
  const last = median(values.slice(-third));
  const perCycle = slope(values);
  const allowance = first * (rule.ratio - 1) + rule.slack;
  const rise = perCycle * (values.length - 1);
  const grows = rise > allowance && last - first > allowance / 2;
  return {
    first,
    last,
    slope: perCycle,
    verdict: grows
      ? `grew from ${first.toFixed(1)} to ${last.toFixed(1)} (fitted rise ${rise.toFixed(1)} over ${values.length} cycles, allowed ${allowance.toFixed(1)})`
      : null,
  };
}
