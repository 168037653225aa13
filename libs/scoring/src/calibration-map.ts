/**
 * The calibration maps (calibration.ts): log-odds → percent of real mailboxes, one per regime, fitted
 * by `npm run bench:calibrate -- --write` on the `fitting` population (test/bench/scoring-populations.ts).
 * Generated: refit rather than edit.
 */
import type { CalibrationMap, Regime } from './calibration';

export const CALIBRATION_MAPS: Record<Regime, CalibrationMap> = {
  static: [
    [-5.3, 1],
    [-1.99, 1.4],
    [-1.92, 2.1],
    [-1.62, 4.8],
    [-1.6, 9.6],
    [-1.39, 15.5],
    [-1.3, 22.7],
    [-0.86, 30.4],
    [-0.8, 38.7],
    [-0.66, 47.5],
    [-0.65, 56.9],
    [-0.5, 62],
    [-0.47, 62.7],
    [0.42, 65.4],
    [0.43, 70.2],
    [0.92, 74.5],
    [0.95, 78.2],
    [1.45, 81.3],
    [1.46, 83.6],
    [1.53, 85.6],
    [1.58, 87.3],
    [1.8, 90.8],
    [1.9, 96.3],
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
