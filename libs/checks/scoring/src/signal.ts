/**
 * One signal of the catch-all model: a named weight in log-odds. Its own file because the static
 * signals (catch-all-confidence.ts) and the learned ones (domain-model.ts) both make them.
 */
export interface Signal {
  signal: string;
  weight: number;
}
