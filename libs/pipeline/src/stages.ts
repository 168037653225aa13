import type { DomainKnowledge } from '@mailguard/feedback';
import type { ResultCache } from '@mailguard/cache';
import type { VerificationEngine } from '@mailguard/engine';
import { concludeGroupHandler, feedHandler, probeGroupHandler, webhookHandler, type ListOptions, type ListStore } from '@mailguard/lists';
import type { Outbound } from '@mailguard/net';
import { jobIdFor, type JobHandler, type JobHandlers } from '@mailguard/queue';
import { asksToRetryLater } from '@mailguard/smtp';
import type { ResultStore } from './result-store';

export const MAX_GREYLIST_RETRIES = 3;

export interface StageOptions {
  /** Delay before asking a greylisting server again; null: never. */
  greylistRetryMs: number | null;
}

/** Stage 1 (dns-worker): syntax, DNS and lists; then on to SMTP, or straight to scoring. */
export function inspectHandler(engine: VerificationEngine): JobHandler<'dns.inspect'> {
  return async (request, queue) => {
    const inspection = await engine.inspect(request.email, { deadlineAt: request.deadlineAt });
    // Addresses that fail syntax or have no mail host never reach the SMTP queue.
    if (inspection.needsProbe) await queue.enqueue('smtp.probe', { request, inspection, attempt: 0 }, { jobId: jobIdFor(request.requestId, 'smtp.probe') });
    else await queue.enqueue('scoring.conclude', { request, inspection, outcome: null }, { jobId: jobIdFor(request.requestId, 'scoring.conclude') });
    return inspection;
  };
}

/** Stage 2 (smtp-worker): the probe; greylisting waits in the queue as a delayed job, never in a sleeping worker. */
export function probeHandler(engine: VerificationEngine, options: StageOptions): JobHandler<'smtp.probe'> {
  return async ({ request, inspection, attempt }, queue) => {
    const outcome = await engine.probe(inspection, { deadlineAt: request.deadlineAt, retryGreylisting: false });
    const retry = options.greylistRetryMs;
    const greylisted = !outcome.probe.definite && asksToRetryLater(outcome.probe.failure);
    if (greylisted && retry !== null && attempt < MAX_GREYLIST_RETRIES && Date.now() + retry < request.deadlineAt) {
      await queue.enqueue('smtp.probe', { request, inspection, attempt: attempt + 1 }, { jobId: jobIdFor(request.requestId, 'smtp.probe', attempt + 1), delayMs: retry });
    } else {
      await queue.enqueue('scoring.conclude', { request, inspection, outcome }, { jobId: jobIdFor(request.requestId, 'scoring.conclude') });
    }
    return outcome;
  };
}

/** Stage 3 (scoring-worker): confidence and verdict, then the result is stored and cached. */
export function concludeHandler(engine: VerificationEngine, store: ResultStore, knowledge: DomainKnowledge): JobHandler<'scoring.conclude'> {
  return async ({ request, inspection, outcome }) => {
    const [result] = await knowledge.conclude(engine, [inspection], [outcome]);
    await store.save(request, result);
    await knowledge.learn([result]);
    return result;
  };
}

/** Every job, for the in-process pipeline: the same handlers the workers run. */
export function stageHandlers(engine: VerificationEngine, store: ResultStore, lists: ListStore, cache: ResultCache, knowledge: DomainKnowledge, options: ListOptions, outbound: Outbound): JobHandlers {
  return {
    'dns.inspect': inspectHandler(engine),
    'smtp.probe': probeHandler(engine, options),
    'scoring.conclude': concludeHandler(engine, store, knowledge),
    'list.feed': feedHandler(engine, lists),
    'smtp.probeGroup': probeGroupHandler(engine, options),
    'scoring.concludeGroup': concludeGroupHandler(engine, lists, cache, knowledge, options),
    'webhook.deliver': webhookHandler(lists, outbound),
  };
}
