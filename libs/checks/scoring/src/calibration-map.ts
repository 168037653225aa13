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
    [-2.2, 1.8],
    [-2.19, 3.5],
    [-1.69, 6.5],
    [-1.66, 10.8],
    [-1.01, 17.4],
    [-0.99, 26.2],
    [-0.66, 32.9],
    [-0.65, 37.6],
    [-0.38, 45.3],
    [-0.37, 56.1],
    [-0.06, 63.1],
    [-0.05, 66.2],
    [0.37, 68],
    [0.38, 68.6],
    [0.47, 69],
    [0.48, 69.2],
    [0.89, 69.6],
    [0.9, 70.2],
    [1.49, 70.6],
    [1.5, 70.7],
    [1.8, 77.8],
    [1.81, 91.9],
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
