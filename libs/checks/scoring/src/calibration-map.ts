/**
 * The calibration maps (calibration.ts): log-odds → percent of real mailboxes, one per regime, fitted
 * by `npm run bench:calibrate -- --write` on the `fitting` population's FITTING_SEEDS (test/bench/scoring-populations.ts).
 * Generated: refit rather than edit.
 */
import type { CalibrationMap, Regime } from './calibration';

export const CALIBRATION_MAPS: Record<Regime, CalibrationMap> = {
  static: [
    [-1.6, 38.4],
    [-0.7, 41.2],
    [-0.5, 46.7],
    [-0.4, 50],
    [-0.2, 51.1],
    [0.6, 53.1],
    [0.8, 56],
    [0.9, 67.8],
    [1, 88.6],
    [2.7, 99],
  ],
  learned: [
    [-5.6, 1],
    [-2.27, 1.5],
    [-2.26, 2.4],
    [-1.91, 3.7],
    [-1.89, 5.2],
    [-1.58, 7],
    [-1.56, 9.2],
    [-1.09, 14],
    [-1.07, 21.3],
    [-0.71, 29.3],
    [-0.7, 38],
    [-0.38, 47.1],
    [-0.37, 56.6],
    [-0.07, 62.5],
    [-0.06, 65],
    [0.33, 66.7],
    [0.34, 67.7],
    [0.37, 68.8],
    [0.38, 69.9],
    [0.89, 70.7],
    [0.9, 71.1],
    [1.49, 71.4],
    [1.5, 71.7],
    [1.8, 78.6],
    [1.81, 92.2],
    [3.6, 99],
  ],
  reported: [
    [-5.61, 1],
    [-2.62, 11.3],
    [-2.55, 31.9],
    [-0.6, 49],
    [-0.59, 62.7],
    [-0.26, 69.6],
    [-0.24, 69.9],
    [2.7, 70],
  ],
  flawed: [
    [-9.3, 1],
    [0.5, 1],
  ],
  delivered: [
    [5.74, 99],
    [9.5, 99],
  ],
};
