/**
 * The calibration maps (calibration.ts): log-odds → percent of real mailboxes, one per regime, fitted
 * by `npm run bench:calibrate -- --write` on the `fitting` population (test/bench/scoring-populations.ts).
 * Generated: refit rather than edit.
 */
import type { CalibrationMap, Regime } from './calibration';

export const CALIBRATION_MAPS: Record<Regime, CalibrationMap> = {
  static: [
    [-4, 1],
    [-1.99, 1.4],
    [-1.92, 2.1],
    [-1.62, 4.4],
    [-1.6, 8.5],
    [-1.39, 12.7],
    [-1.3, 17.2],
    [-0.95, 22.4],
    [-0.93, 28.2],
    [-0.66, 38.8],
    [-0.65, 54],
    [-0.5, 61.9],
    [-0.47, 62.4],
    [0.42, 65.1],
    [0.43, 70],
    [0.92, 74.2],
    [0.95, 77.7],
    [1.45, 80.1],
    [1.46, 81.5],
    [1.53, 83.4],
    [1.58, 85.9],
    [1.8, 90.1],
    [1.9, 96],
    [3.6, 99],
  ],
  reported: [
    [-4.21, 1],
    [-0.57, 19.4],
    [-0.55, 56.1],
    [0, 75.1],
    [0.04, 76.2],
    [2.54, 76.7],
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
