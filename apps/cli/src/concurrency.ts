/** Maps items with at most `limit` in flight, keeping the results in input order. */
export async function runConcurrently<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

/** Wakes whoever waits for the state to change (the reader for room, the writer for a result). */
class Changed {
  private waiters: Array<() => void> = [];

  wait(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  fire(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}

/**
 * Streams `items` through `work` with at most `limit` in flight, handing each result to `emit` in input
 * order as soon as every earlier one is out. It reads ahead at most `window` items: a slow item holds
 * memory for the results behind it, never the other lanes, and a file of any length streams.
 */
export async function mapInOrder<T, R>(
  items: AsyncIterable<T>,
  limit: number,
  work: (item: T) => Promise<R>,
  emit: (item: T, result: R) => Promise<void> | void,
  window = limit * 8,
): Promise<void> {
  const queue: Array<{ item: T; result: Promise<R> }> = [];
  const changed = new Changed();
  let running = 0;
  let read = false;
  let stopped = false;

  const produce = async () => {
    try {
      for await (const item of items) {
        while (!stopped && (running >= limit || queue.length >= window)) await changed.wait();
        if (stopped) return;
        running++;
        const result = work(item).finally(() => {
          running--;
          changed.fire();
        });
        // Awaited by the writer in its turn; a failure is its to report.
        result.catch(() => undefined);
        queue.push({ item, result });
        changed.fire();
      }
    } finally {
      read = true;
      changed.fire();
    }
  };

  const consume = async () => {
    try {
      for (;;) {
        while (queue.length === 0 && !read) await changed.wait();
        const head = queue.shift();
        if (!head) return;
        changed.fire();
        await emit(head.item, await head.result);
      }
    } finally {
      // A failed result or write stops the reading too.
      stopped = true;
      changed.fire();
    }
  };

  await Promise.all([produce(), consume()]);
}
