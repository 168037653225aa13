/**
 * The calibration maps (calibration.ts): log-odds → percent of real mailboxes, one per regime, fitted
 * by `npm run bench:calibrate -- --write` on the `fitting` population's FITTING_SEEDS (test/bench/scoring-populations.ts).
 * Generated: refit rather than edit.
 */
import type { CalibrationMap, Regime } from './calibration';

export const CALIBRATION_MAPS: Record<Regime, CalibrationMap> = {
  static: [
    [-1.6, 40],
    [-1, 40.7],
    [-0.8, 42.1],
    [-0.7, 42.8],
    [-0.5, 42.9],
    [-0.4, 50],
    [-0.2, 51.5],
    [0, 53.5],
    [0.1, 55.7],
    [0.2, 58.7],
    [0.9, 69.9],
    [1, 89.3],
    [2.7, 99],
  ],
  learned: [
    [-5.3, 1],
    [-1.8, 1.1],
    [-1.77, 1.2],
    [-1.39, 8.6],
    [-1.37, 23.3],
    [-0.86, 33.6],
    [-0.85, 39.3],
    [-0.57, 47.3],
    [-0.53, 57.4],
    [-0.23, 63.5],
    [-0.22, 65.8],
    [0.22, 67.3],
    [0.23, 68],
    [0.45, 68.5],
    [0.46, 68.6],
    [1.14, 68.7],
    [1.15, 69],
    [1.18, 70],
    [1.2, 71.7],
    [1.45, 73.1],
    [1.46, 74],
    [1.8, 80.6],
    [1.82, 92.9],
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
