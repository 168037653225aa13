import { EngineModule, StoresModule } from '@mailguard/core';
import { runWorker } from '@mailguard/worker';

/** Stage 3: catch-all confidence and the verdict; results are stored in Postgres (list rows settled) and cached. */
void runWorker('scoring-worker', {
  queue: 'scoring',
  // What it ran with while its processor was registered twice (20, taken by two BullMQ workers): the list benches' figures.
  concurrency: 40,
  // 3× the live heap: at V8's own pacing its peak on the 100,000-row list was 446–451 MB (368 at 3×), and at
  // 2× its extra full GCs cost the stage that lasts ~1 CPU-second per 100,000 rows.
  heapGrowingPercent: 200,
  imports: [EngineModule, StoresModule],
});
