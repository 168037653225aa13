import type { Redis } from 'ioredis';
import { APP_CONFIG, type AppConfig } from '@mailguard/config';
import { probeGroupHandler } from '@mailguard/lists';
import type { Logger } from '@mailguard/logger';
import { Metrics } from '@mailguard/metrics';
import { buildEngine, buildGate, listOptions, probeHandler, superviseGate } from '@mailguard/pipeline';
import type { JobHandler } from '@mailguard/queue';
import { LOGGER, REDIS, runWorker } from '@mailguard/worker';

/** Stage 2: the prober fleet. The per-MX session cap and cool-downs are shared through Redis. */
void runWorker('smtp-worker', {
  queue: 'smtp',
  concurrency: 100,
  needsDatabase: false,
  handlers: {
    inject: [APP_CONFIG, REDIS, Metrics, LOGGER],
    useFactory: (config: AppConfig, redis: Redis, metrics: Metrics, logger: Logger) => {
      const gate = buildGate(config, redis);
      superviseGate(gate, metrics, logger);
      const engine = buildEngine(config, redis, gate);
      const probe = probeHandler(engine, { greylistRetryMs: config.checks.greylistRetrySeconds * 1000 });
      const measured: JobHandler<'smtp.probe'> = async (payload, queue) => {
        const outcome = await probe(payload, queue);
        const provider = payload.inspection.facts?.provider ?? 'other';
        metrics.smtpOutcomes.inc({ class: outcome.probe.replyClass ?? outcome.probe.failure ?? 'none', provider });
        return outcome;
      };
      return { 'smtp.probe': measured, 'smtp.probeGroup': probeGroupHandler(engine, listOptions(config)) };
    },
  },
});
