/**
 * The calibration maps (calibration.ts): log-odds → percent of real mailboxes, one per regime, fitted
 * by `npm run bench:calibrate -- --write` on the `fitting` population's FITTING_SEEDS (test/bench/scoring-populations.ts).
 * Generated: refit rather than edit.
 */
import type { CalibrationMap, Regime } from './calibration';

export const CALIBRATION_MAPS: Record<Regime, CalibrationMap> = {
  static: [
    [-1.6, 37.9],
    [-0.7, 40.8],
    [-0.5, 46.4],
    [-0.4, 50],
    [-0.2, 51.3],
    [0.3, 53],
    [0.5, 55],
    [0.9, 66.8],
    [1, 88.3],
    [2.7, 99],
  ],
  learned: [
    [-5.6, 1],
    [-2.21, 2.3],
    [-2.2, 5],
    [-1.7, 7],
    [-1.69, 8.3],
    [-1.2, 12.4],
    [-1.18, 19.1],
    [-0.92, 26.5],
    [-0.91, 34.3],
    [-0.38, 44],
    [-0.37, 55.3],
    [-0.06, 62.7],
    [-0.05, 65.9],
    [0.34, 67.8],
    [0.35, 68.1],
    [0.49, 68.6],
    [0.5, 69.1],
    [0.89, 69.7],
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
