import type { Kind } from './scoring-populations';

/**
 * What the scoring bench reports: AUC (with and without lookalikes, beside the best any score could
 * reach) and the reliability table. Shared by the bench, the in-process replay, the calibration
 * script and the unit tests, so that all measure the same way.
 */
export interface Outcome {
  real: boolean;
  confidence: number;
  kind: Kind;
  avatar: boolean;
}

/** The probability that a random real address scores above a random made-up one (ties count half). */
export function auc(scored: Array<{ real: boolean; confidence: number }>): number {
  const real = scored.filter((item) => item.real).map((item) => item.confidence);
  const fake = scored.filter((item) => !item.real).map((item) => item.confidence);
  let wins = 0;
  for (const r of real) for (const f of fake) wins += r > f ? 1 : r === f ? 0.5 : 0;
  return wins / (real.length * fake.length);
}

/** The best AUC any score can reach: avatar-holders first, staff without one tied with lookalikes, then the rest. */
export const ceiling = (scored: Outcome[]) =>
  auc(
    scored.map((item) => ({
      real: item.real,
      confidence: item.avatar ? 2 : item.kind === 'staff' || item.kind === 'lookalike' ? 1 : 0,
    })),
  );

export const withoutLookalikes = <T extends { kind: Kind }>(scored: T[]) =>
  scored.filter((item) => item.kind !== 'lookalike');

/**
 * Reliability bands: 0–19, 20–39, 40–59, 60–79, 80–100 (each holds the integers from its lower edge
 * up to the next band's). A band's label is its midpoint (10, 30, 50, 70, 90); it is `met` when the
 * observed share of real mailboxes is within TOLERANCE points of the label. A band with fewer than
 * MIN_BAND addresses is shown but judged on nothing: its share is too noisy to say anything
 * (±20 points at n = 25).
 */
export const TOLERANCE = 10;
export const MIN_BAND = 25;

export interface Band {
  low: number;
  high: number;
  label: number;
  n: number;
  meanConfidence: number;
  observed: number;
  judged: boolean;
  met: boolean;
}

export function reliability(scored: Array<{ real: boolean; confidence: number }>): Band[] {
  return [0, 20, 40, 60, 80].map((low) => {
    const high = low === 80 ? 100 : low + 19;
    const band = scored.filter((item) => item.confidence >= low && item.confidence <= high);
    const n = band.length;
    const observed = n === 0 ? 0 : (100 * band.filter((item) => item.real).length) / n;
    const meanConfidence = n === 0 ? 0 : band.reduce((sum, item) => sum + item.confidence, 0) / n;
    const label = low + 10;
    const judged = n >= MIN_BAND;
    return {
      low,
      high,
      label,
      n,
      meanConfidence,
      observed,
      judged,
      met: !judged || Math.abs(observed - label) <= TOLERANCE,
    };
  });
}

/** The judged bands' observed shares rise with the band. */
export function rising(bands: Band[]): boolean {
  const judged = bands.filter((band) => band.judged);
  return judged.every((band, index) => index === 0 || band.observed > judged[index - 1].observed);
}

export function reliabilityTable(bands: Band[]): string[] {
  return [
    '    band      n   mean confidence   observed real   within ±10 of label',
    ...bands.map(
      (band) =>
        `    ${`${band.low}–${band.high}`.padEnd(8)}${String(band.n).padStart(5)}   ${band.n ? `${band.meanConfidence.toFixed(0)}%`.padStart(15) : '-'.padStart(15)}` +
        `   ${band.n ? `${band.observed.toFixed(0)}%`.padStart(13) : '-'.padStart(13)}   ${band.judged ? (band.met ? 'yes' : 'NO') : `(n < ${MIN_BAND})`}`,
    ),
  ];
}
