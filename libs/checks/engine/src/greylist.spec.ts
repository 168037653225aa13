import type { ProbeFailure, ProbeResult } from '@mailguard/smtp';
import type { ProbeOutcome } from './engine';
import { greylistRetry, MAX_GREYLIST_RETRIES } from './greylist';

/** The one greylisting policy: which addresses to ask again, after how long, within the deadline. */
function outcome(failure: ProbeFailure | null): ProbeOutcome {
  const probe: ProbeResult = {
    definite: failure === null,
    replyClass: failure === null ? 'accepted' : null,
    failure,
    reply: null,
    host: null,
    catchAll: null,
    sessions: 1,
    roundTrips: 1,
  };
  return { probe, durationMs: 10 };
}

const NOW = 1_000_000;
const RETRY_MS = 300_000;

describe('greylistRetry', () => {
  it('asks again the addresses a server told to come back later (greylisting, a rate limit), and only those', () => {
    const outcomes = ['greylisted', null, 'rate_limited', 'sender_blocked', 'timeout', 'skipped', 'no_connection'].map(
      (failure) => outcome(failure as ProbeFailure | null),
    );
    expect(greylistRetry(outcomes, { attempt: 0, deadlineAt: null, now: NOW, retryMs: RETRY_MS })).toEqual({
      indices: [0, 2],
      delayMs: RETRY_MS,
    });
  });

  it('settles at once when nobody asked to come back', () => {
    expect(
      greylistRetry([outcome(null), outcome('timeout')], { attempt: 0, deadlineAt: null, now: NOW, retryMs: RETRY_MS }),
    ).toBeNull();
  });

  it('retries only when the wait ends before the answer is due', () => {
    const greylisted = [outcome('greylisted')];
    expect(
      greylistRetry(greylisted, { attempt: 0, deadlineAt: NOW + RETRY_MS + 1, now: NOW, retryMs: RETRY_MS }),
    ).toEqual({ indices: [0], delayMs: RETRY_MS });
    expect(
      greylistRetry(greylisted, { attempt: 0, deadlineAt: NOW + RETRY_MS, now: NOW, retryMs: RETRY_MS }),
    ).toBeNull();
    expect(greylistRetry(greylisted, { attempt: 0, deadlineAt: NOW + 12_000, now: NOW, retryMs: RETRY_MS })).toBeNull();
  });

  it(`stops after ${MAX_GREYLIST_RETRIES} retries, with or without a deadline`, () => {
    const greylisted = [outcome('greylisted')];
    for (const deadlineAt of [null, NOW + 10 * RETRY_MS]) {
      expect(
        greylistRetry(greylisted, { attempt: MAX_GREYLIST_RETRIES - 1, deadlineAt, now: NOW, retryMs: RETRY_MS }),
      ).not.toBeNull();
      expect(
        greylistRetry(greylisted, { attempt: MAX_GREYLIST_RETRIES, deadlineAt, now: NOW, retryMs: RETRY_MS }),
      ).toBeNull();
    }
  });

  it('never retries when retrying is switched off', () => {
    expect(
      greylistRetry([outcome('greylisted')], { attempt: 0, deadlineAt: null, now: NOW, retryMs: null }),
    ).toBeNull();
  });
});
