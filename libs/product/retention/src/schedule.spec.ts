import { watchTimers } from '../../../../test/support/timers';
import { scheduleSweeps } from './schedule';

/**
 * The sweep timer is released by `stop` whenever it comes: before the first sweep, during one,
 * between two, after a failed one: each test counts the timers set since it began (from inside
 * it: jest sets the test's own timeout timer before it runs).
 */
const watches: Array<ReturnType<typeof watchTimers>> = [];
const watch = () => watches[watches.push(watchTimers()) - 1];
afterEach(() => watches.splice(0).forEach((watched) => watched.close()));

/** A sweep the test ends by hand, and the sweeps run so far. */
function sweeps() {
  let ends: Array<(error?: Error) => void> = [];
  let started: () => void = () => undefined;
  const state = {
    runs: 0,
    sweep: () =>
      new Promise<void>((resolve, reject) => {
        state.runs++;
        ends.push((error) => (error ? reject(error) : resolve()));
        started();
      }),
    /** Resolves once sweep number `run` has started. */
    started: (run: number) =>
      new Promise<void>((resolve) => {
        started = () => state.runs >= run && resolve();
        started();
      }),
    /** Ends the sweep under way. */
    end(error?: Error) {
      const [next, ...rest] = ends;
      ends = rest;
      next(error);
    },
  };
  return state;
}

/** Lets the promise callbacks queued so far run (a sweep's end reaches the schedule through a few). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

it('sweeps at once, then again after each sweep, never two at a time', async () => {
  const sweep = sweeps();
  const schedule = scheduleSweeps(sweep.sweep, 1, () => undefined);
  try {
    await sweep.started(1);
    expect(sweep.runs).toBe(1);
    sweep.end();
    await sweep.started(2);
    expect(sweep.runs).toBe(2);
  } finally {
    const stopped = schedule.stop();
    sweep.end();
    await stopped;
  }
});

it('releases its timer when stopped before the first sweep', async () => {
  const timers = watch();
  const sweep = sweeps();
  const schedule = scheduleSweeps(sweep.sweep, 60_000, () => undefined);
  // Counted in the same turn: the first sweep's timer is due at once and could fire while `open` waits.
  expect(timers.openNow()).toBe(1);
  await schedule.stop();
  expect(await timers.open()).toBe(0);
  await settle();
  expect(sweep.runs).toBe(0);
});

it('waits for the sweep under way when stopped during one, and sets no timer after it', async () => {
  const timers = watch();
  const sweep = sweeps();
  const schedule = scheduleSweeps(sweep.sweep, 60_000, () => undefined);
  await sweep.started(1);
  let stopped = false;
  const stopping = schedule.stop().then(() => (stopped = true));
  await settle();
  expect(stopped).toBe(false);
  sweep.end();
  await stopping;
  expect(await timers.open()).toBe(0);
  expect(sweep.runs).toBe(1);
});

it('releases the timer of the next sweep when stopped between two', async () => {
  const timers = watch();
  const sweep = sweeps();
  const schedule = scheduleSweeps(sweep.sweep, 60_000, () => undefined);
  await sweep.started(1);
  sweep.end();
  await settle();
  expect(await timers.open()).toBe(1);
  await schedule.stop();
  expect(await timers.open()).toBe(0);
});

it('reports a failed sweep, tries again at the next turn, and releases that turn when stopped', async () => {
  const timers = watch();
  const sweep = sweeps();
  const errors: unknown[] = [];
  const schedule = scheduleSweeps(sweep.sweep, 60_000, (error) => errors.push(error));
  await sweep.started(1);
  sweep.end(new Error('database unavailable'));
  await settle();
  expect(errors).toEqual([new Error('database unavailable')]);
  expect(await timers.open()).toBe(1);
  await schedule.stop();
  expect(await timers.open()).toBe(0);
  await schedule.stop();
  expect(await timers.open()).toBe(0);
});
