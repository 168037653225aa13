/** A running schedule; `stop` clears its timer and waits for the sweep under way, if any. */
export interface Schedule {
  stop(): Promise<void>;
}

/**
 * Runs `sweep` at once (a process restarted more often than `everyMs` still sweeps), then
 * `everyMs` after each one ends, so two never overlap. A failed sweep goes to `onError` and the
 * next turn tries again. The timer is not unref'd: a schedule nobody stopped keeps its process
 * alive, where it shows, rather than sweeping a database being closed.
 */
export function scheduleSweeps(
  sweep: () => Promise<unknown>,
  everyMs: number,
  onError: (error: unknown) => void,
): Schedule {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let stopped = false;
  const turn = () => {
    timer = null;
    running = (async () => {
      try {
        await sweep();
      } catch (error) {
        onError(error);
      }
      running = null;
      if (!stopped) timer = setTimeout(turn, everyMs);
    })();
  };
  timer = setTimeout(turn, 0);
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await running;
    },
  };
}
