import { buildEngine, probeHandler } from '@mailguard/pipeline';
import { runWorker } from '@mailguard/worker';

/** Stage 2: the prober fleet. The per-MX session cap and cool-downs are shared through Redis. */
void runWorker('smtp-worker', {
  queue: 'smtp',
  port: 3102,
  concurrency: 100,
  needsDatabase: false,
  handlers: ({ config, redis }) => ({
    'smtp.probe': probeHandler(buildEngine(config, redis), { greylistRetryMs: config.checks.greylistRetrySeconds * 1000 }),
  }),
});
