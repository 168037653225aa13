import { buildEngine, buildGate, superviseGate } from '@mailguard/core';
import { probeHandler } from '@mailguard/pipeline';
import { runWorker } from '@mailguard/worker';

/** Stage 2: the prober fleet. The per-MX session cap and cool-downs are shared through Redis. */
void runWorker('smtp-worker', {
  queue: 'smtp',
  concurrency: 100,
  needsDatabase: false,
  handlers: ({ config, redis, metrics, logger }) => {
    const gate = buildGate(config, redis);
    superviseGate(gate, metrics, logger);
    const engine = buildEngine(config, redis, gate);
    const probe = probeHandler(engine, ({ probe: outcome }, job) => {
      metrics.smtpOutcomes.inc({ class: outcome.replyClass ?? outcome.failure ?? 'none', provider: job.facts.provider ?? 'other' });
    });
    return { 'smtp.probe': probe };
  },
});
