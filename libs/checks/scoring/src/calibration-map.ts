/**
 * The calibration maps (calibration.ts): log-odds → percent of real mailboxes, one per regime, fitted
 * by `npm run bench:calibrate -- --write` on the `fitting` population (test/bench/scoring-populations.ts).
 * Generated: refit rather than edit.
 */
import type { CalibrationMap, Regime } from './calibration';

export const CALIBRATION_MAPS: Record<Regime, CalibrationMap> = {
  static: [
    [-1.6, 42.3],
    [-1, 42.9],
    [-0.8, 44.1],
    [-0.7, 46.2],
    [-0.5, 49.2],
    [-0.4, 52.5],
    [-0.2, 57.6],
    [0, 61.1],
    [0.9, 71.5],
    [1, 89.8],
    [2.7, 99],
  ],
  learned: [
    [-5.3, 1],
    [-1.99, 1.1],
    [-1.92, 1.4],
    [-1.29, 11.6],
    [-1.28, 31.6],
    [-0.63, 48.7],
    [-0.62, 62.7],
    [0.17, 70.1],
    [0.18, 70.9],
    [0.29, 72.9],
    [0.32, 75.9],
    [0.85, 77.5],
    [0.86, 77.7],
    [1.45, 79.4],
    [1.46, 82.8],
    [1.71, 85.1],
    [1.72, 86.1],
    [1.8, 89.7],
    [1.9, 95.9],
    [3.6, 99],
  ],
  reported: [
    [-5.33, 1],
    [-0.57, 19.7],
    [-0.55, 57.2],
    [0, 76.3],
    [0.04, 77.1],
    [2.54, 77.4],
  ],
  flawed: [
    [-9.41, 1],
    [0.34, 1],
  ],
  delivered: [
    [6.24, 99],
    [9.34, 99],
  ],
};
