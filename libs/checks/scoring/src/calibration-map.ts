/**
 * The calibration maps (calibration.ts): log-odds → percent of real mailboxes, one per regime, fitted
 * by `npm run bench:calibrate -- --write` on the `fitting` population's FITTING_SEEDS (test/bench/scoring-populations.ts).
 * Generated: refit rather than edit.
 */
import type { CalibrationMap, Regime } from './calibration';

export const CALIBRATION_MAPS: Record<Regime, CalibrationMap> = {
  static: [
    [-1.6, 38.3],
    [-0.7, 41],
    [-0.5, 46.3],
    [-0.4, 49.7],
    [-0.2, 51.1],
    [0.6, 53.7],
    [0.8, 57.4],
    [0.9, 69.2],
    [1, 89.1],
    [2.7, 99],
  ],
  learned: [
    [-5.6, 1],
    [-2.23, 2.3],
    [-2.21, 5],
    [-1.7, 6.9],
    [-1.69, 8.2],
    [-1.32, 10.7],
    [-1.29, 14.4],
    [-0.98, 22.1],
    [-0.97, 33.7],
    [-0.38, 44.9],
    [-0.37, 55.7],
    [-0.06, 62.6],
    [-0.05, 65.5],
    [0.34, 67.5],
    [0.35, 68.4],
    [0.49, 68.9],
    [0.5, 69],
    [0.87, 69.4],
    [0.88, 70.1],
    [1.49, 70.5],
    [1.5, 70.6],
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
