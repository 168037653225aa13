/** Callers waiting for jobs to complete (a check's final job, a probe and its greylisting retries), by job id. */
export class JobWaiters {
  private readonly waiting = new Map<string, (result: unknown) => void>();

  has(jobId: string): boolean {
    return this.waiting.has(jobId);
  }

  /** A job completed: its waiter, if any, gets its result. */
  completed(jobId: string, result: unknown): void {
    this.waiting.get(jobId)?.(result);
  }

  /**
   * Runs `start` (which adds the first job) and resolves with the first completion of `jobIds` that
   * `answer` reads an answer from; null when `deadlineAt` comes first. Rejects when `start` fails.
   */
  wait<T>(
    jobIds: string[],
    deadlineAt: number,
    answer: (result: unknown) => T | null,
    start: () => Promise<void>,
  ): Promise<T | null> {
    return new Promise((resolve, reject) => {
      const end = () => {
        clearTimeout(timer);
        for (const id of jobIds) this.waiting.delete(id);
      };
      const timer = setTimeout(
        () => {
          end();
          resolve(null);
        },
        Math.max(0, deadlineAt - Date.now()),
      );
      for (const id of jobIds) {
        this.waiting.set(id, (result) => {
          const value = answer(result);
          if (value === null) return;
          end();
          resolve(value);
        });
      }
      start().catch((error: unknown) => {
        end();
        reject(error);
      });
    });
  }
}
