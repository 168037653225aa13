import { EngineModule, ProberModule } from '@mailguard/core';
import { runWorker } from '@mailguard/worker';

/** Stage 2: the prober fleet. The per-MX session cap and cool-downs are shared through Redis (EngineModule's gate). */
void runWorker('smtp-worker', {
  queue: 'smtp',
  concurrency: 100,
  // Its jobs (a list's 500-row groups, held through SMTP dialogues) die old: collect them at 1.5× the live heap, not 4×.
  heapGrowingPercent: 50,
  // ProberModule: the self-check at start-up and every PROBER_CHECK_MINUTES (docs/production.md).
  imports: [EngineModule, ProberModule],
});
