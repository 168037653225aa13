import { probeGroupHandler } from '@mailguard/lists';
import { buildEngine, buildGate, listOptions, probeHandler } from '@mailguard/pipeline';
import type { JobHandler } from '@mailguard/queue';
import { runWorker } from '@mailguard/worker';

/** Stage 2: the prober fleet. The per-MX session cap and cool-downs are shared through Redis. */
void runWorker('smtp-worker', {
  queue: 'smtp',
  concurrency: 100,
  needsDatabase: false,
  handlers: ({ config, redis, metrics }) => {
    const gate = buildGate(config, redis);
    const engine = buildEngine(config, redis, gate);
    const probe = probeHandler(engine, { greylistRetryMs: config.checks.greylistRetrySeconds * 1000 });
    const measured: JobHandler<'smtp.probe'> = async (payload, queue) => {
      const outcome = await probe(payload, queue);
      const provider = payload.inspection.facts?.provider ?? 'other';
      metrics.smtpOutcomes.inc({ class: outcome.probe.replyClass ?? outcome.probe.failure ?? 'none', provider });
      metrics.slotWaits.set(gate.waits);
      return outcome;
    };
    const probeGroup = probeGroupHandler(engine, listOptions(config));
    const measuredGroup: JobHandler<'smtp.probeGroup'> = async (payload, queue) => {
      const outcome = await probeGroup(payload, queue);
      metrics.slotWaits.set(gate.waits);
      return outcome;
    };
    return { 'smtp.probe': measured, 'smtp.probeGroup': measuredGroup };
  },
});
