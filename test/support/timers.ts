import { createHook } from 'node:async_hooks';

/**
 * Counts the timers set since it was made and not yet cleared or fired. Counting every timer of the
 * process instead would move with other suites' leftovers ending mid-test (jest runs in band in CI).
 * `from`: only timers set by code in a file whose path holds it (a leftover of another suite, or a
 * driver's pool, may set timers of its own during the test).
 */
export function watchTimers(from?: string): {
  open: () => Promise<number>;
  openNow: () => number;
  close: () => void;
} {
  const alive = new Set<number>();
  const hook = createHook({
    init(id, type) {
      if (type === 'Timeout' && (from === undefined || new Error().stack?.includes(from))) alive.add(id);
    },
    destroy(id) {
      alive.delete(id);
    },
  }).enable();
  return {
    // Node reports a cleared timer's end on its next turn.
    open: () => new Promise((resolve) => setImmediate(() => resolve(alive.size))),
    // Without waiting a turn: a timer due at once (0 ms) may fire during that turn.
    openNow: () => alive.size,
    close: () => hook.disable(),
  };
}
