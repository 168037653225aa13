/**
 * The calibration maps (calibration.ts): log-odds → percent of real mailboxes, one per regime, fitted
 * by `npm run bench:calibrate -- --write` on the `fitting` population's FITTING_SEEDS (test/bench/scoring-populations.ts).
 * Generated: refit rather than edit.
 */
import type { CalibrationMap, Regime } from './calibration';

export const CALIBRATION_MAPS: Record<Regime, CalibrationMap> = {
  static: [
    [-1.6, 38.4],
    [-0.7, 41.15],
    [-0.5, 46.65],
    [-0.4, 49.78],
    [-0.2, 50.53],
    [0.9, 50.9],
  ],
  learned: [
    [-5.6, 1],
    [-2.27, 1.48],
    [-2.26, 2.42],
    [-1.91, 3.65],
    [-1.89, 5.15],
    [-1.58, 6.65],
    [-1.56, 8.15],
    [-1.09, 12.93],
    [-1.07, 20.98],
    [-0.71, 29.33],
    [-0.7, 37.97],
    [-0.38, 46.95],
    [-0.37, 56.25],
    [-0.07, 62.2],
    [-0.06, 64.8],
    [0.33, 66.57],
    [0.34, 67.53],
    [0.37, 68.53],
    [0.38, 69.57],
    [0.89, 70.22],
    [0.9, 70.47],
    [1.49, 70.63],
    [1.5, 70.68],
    [1.8, 70.7],
  ],
  reported: [
    [-5.61, 1],
    [-2.62, 11.3],
    [-2.55, 31.9],
    [-0.6, 49.03],
    [-0.59, 62.68],
    [-0.26, 69.63],
    [-0.24, 69.88],
    [2.7, 70],
  ],
  flawed: [
    [-9.3, 1],
    [0.5, 1],
  ],
  delivered: [
    [-1.25, 99],
    [9.5, 99],
  ],
};
