/**
 * The calibration map (calibration.ts): log-odds → percent of real mailboxes, fitted by
 * `npm run bench:calibrate -- --write` on the `fitting` population (test/bench/scoring-populations.ts).
 * Generated: refit rather than edit.
 */
export const CALIBRATION_MAP: ReadonlyArray<readonly [number, number]> = [
  [-4.11, 1],
  [-3.09, 1],
  [-2.43, 1.8],
  [-1.88, 5.4],
  [-1.56, 17.4],
  [-1.25, 37.1],
  [-0.82, 40.2],
  [-0.37, 58.1],
  [0.15, 60.8],
  [0.69, 70.1],
  [1.31, 76.2],
  [1.72, 83.6],
  [2.13, 90.7],
  [5.84, 99],
];
