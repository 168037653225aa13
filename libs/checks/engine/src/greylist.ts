import { asksToRetryLater, type ProbeResult } from '@mailguard/smtp';

/** Greylisting retries of one probe at most (each after GREYLIST_RETRY_SECONDS). */
export const MAX_GREYLIST_RETRIES = 3;

export interface GreylistRetry {
  /** Positions of the addresses to ask again. */
  indices: number[];
  delayMs: number;
}

export interface GreylistState {
  /** Retries so far. */
  attempt: number;
  /** Epoch ms by which the answer is due; null when nobody waits for it (list rows). */
  deadlineAt: number | null;
  now: number;
  /** GREYLIST_RETRY_SECONDS in ms; null: never retry. */
  retryMs: number | null;
}

/**
 * The one greylisting policy of every probe (single checks, batches, lists, the finder, domain
 * insight): the addresses a server asked us to come back for (greylisting, a rate limit) are asked
 * again after GREYLIST_RETRY_SECONDS, up to MAX_GREYLIST_RETRIES times, when that still fits before
 * the answer is due. Null: settle now with what is known ("come back later" then reads as unknown).
 */
export function greylistRetry(
  // Only the probe of each outcome is read: the engine's ProbeOutcome fits, without this file importing the engine.
  outcomes: readonly { probe: ProbeResult }[],
  { attempt, deadlineAt, now, retryMs }: GreylistState,
): GreylistRetry | null {
  if (retryMs === null || attempt >= MAX_GREYLIST_RETRIES) return null;
  if (deadlineAt !== null && now + retryMs >= deadlineAt) return null;
  const indices = outcomes.flatMap((outcome, index) =>
    !outcome.probe.definite && asksToRetryLater(outcome.probe.failure) ? [index] : [],
  );
  return indices.length > 0 ? { indices, delayMs: retryMs } : null;
}
