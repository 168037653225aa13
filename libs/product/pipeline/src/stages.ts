import { Inject } from '@nestjs/common';
import { ENGINE, VerificationEngine, type ProbeOutcome, type VerificationResult } from '@mailguard/engine';
import { DomainKnowledge } from '@mailguard/feedback';
import { Metrics } from '@mailguard/metrics';
import {
  jobIdFor,
  JobHandlerFor,
  probeJob,
  type CheckRequest,
  type ScoringPayload,
  type JobHandler,
  type SmtpPayload,
  type StageContext,
  type StageHandler,
} from '@mailguard/queue';
import { ResultStore } from './result-store';

/** A list row's probe has no answer deadline; each attempt's sessions get this long. */
const LIST_PROBE_BUDGET_MS = 120_000;

/** The scoring job of a check whose SMTP began before its inspection was complete: both stages give their part. */
const CONCLUDE_PARTS: Array<keyof ScoringPayload> = ['request', 'inspection', 'outcome'];
/** How long one part waits for the other: past the check's deadline by this much (a stage's retries). */
const JOIN_GRACE_MS = 60_000;

function joinOptions(request: CheckRequest) {
  return {
    jobId: jobIdFor(request.requestId, 'scoring.conclude'),
    ttlMs: Math.max(0, request.deadlineAt - Date.now()) + JOIN_GRACE_MS,
  };
}

/**
 * Stage 1 (dns-worker): syntax, DNS and lists; then on to SMTP, or straight to scoring. SMTP begins
 * as soon as the mail hosts are known; authentication, age and Gravatar go on meanwhile and join
 * the SMTP outcome at scoring.
 */
function inspectHandler(engine: VerificationEngine): JobHandler<'dns.inspect'> {
  return async (request, queue) => {
    const { early, full } = engine.inspectInSteps(request.email, { deadlineAt: request.deadlineAt });
    const first = await early;
    // Addresses that fail syntax or have no mail host never reach the SMTP queue.
    if (!first.needsProbe) {
      const inspection = await full;
      await queue.enqueue(
        'scoring.conclude',
        { request, inspection, outcome: null },
        { jobId: jobIdFor(request.requestId, 'scoring.conclude') },
      );
      return inspection;
    }
    const job = probeJob(request.requestId, [first], request, { to: 'check', request, join: true });
    await queue.enqueue('smtp.probe', job, { jobId: jobIdFor(request.requestId, 'smtp.probe') });
    const inspection = await full;
    await queue.join('scoring.conclude', { inspection }, CONCLUDE_PARTS, joinOptions(request));
    return inspection;
  };
}

/** Sends the outcomes of the addresses at `settled` (positions in the job) where the job says. */
async function deliver(
  job: SmtpPayload,
  settled: number[],
  outcomes: Array<ProbeOutcome | null>,
  queue: StageContext,
  /** A list's rows sent back to wait for a greylisting retry (positions in the job), and when it is due. */
  waiting: { positions: number[]; retryAt: number } | null = null,
): Promise<void> {
  const { then } = job;
  if (then.to === 'caller') return;
  if (settled.length === 0 && !(then.to === 'list' && waiting)) return;
  if (then.to === 'check') {
    const [index] = settled;
    if (then.join)
      return queue.join(
        'scoring.conclude',
        { request: then.request, outcome: outcomes[index] },
        CONCLUDE_PARTS,
        joinOptions(then.request),
      );
    const inspection = { ...job.inspections[index], facts: job.facts };
    await queue.enqueue(
      'scoring.conclude',
      { request: then.request, inspection, outcome: outcomes[index] },
      { jobId: jobIdFor(then.request.requestId, 'scoring.conclude') },
    );
    return;
  }
  const group = {
    listId: then.listId,
    round: then.round,
    rows: settled.map((index) => then.rows[index]),
    facts: job.facts,
    inspections: settled.map((index) => job.inspections[index]),
    outcomes: settled.map((index) => outcomes[index]),
    // Told to the list's store with the settled rows (the scoring worker has the database; this one does not).
    ...(waiting
      ? { greylisted: { rows: waiting.positions.map((index) => then.rows[index]), retryAt: waiting.retryAt } }
      : {}),
  };
  await queue.enqueue('scoring.concludeGroup', group, {
    jobId: jobIdFor(job.key, 'scoring.concludeGroup', job.attempt),
  });
}

/**
 * Stage 2 (smtp-worker): the one SMTP job, for single checks, batches, lists, the finder and domain
 * insight. It asks the addresses no earlier attempt settled, in one session; those the greylisting
 * policy (`greylistRetry`) sends back wait in the queue as a delayed job, never in a sleeping worker;
 * the others go on where the job says (scoring, or the waiting caller once all are in).
 * `observe`: each fresh outcome, for the metrics.
 */
export function probeHandler(
  engine: VerificationEngine,
  observe: (outcome: ProbeOutcome, job: SmtpPayload) => void = () => undefined,
): JobHandler<'smtp.probe'> {
  return async (job, queue) => {
    const asked = job.outcomes.flatMap((outcome, index) => (outcome === null ? [index] : []));
    const inspections = asked.map((index) => ({ ...job.inspections[index], facts: job.facts }));
    const deadlineAt = job.deadlineAt ?? Date.now() + LIST_PROBE_BUDGET_MS;
    const fresh = await engine.probe({ inspections, deadlineAt, stopAtAccepted: job.stopAtAccepted });
    for (const outcome of fresh) observe(outcome, job);
    const outcomes = [...job.outcomes];
    asked.forEach((index, position) => (outcomes[index] = fresh[position]));
    const retry = engine.greylistRetry(fresh, { attempt: job.attempt, deadlineAt: job.deadlineAt });
    const again = new Set(retry?.indices.map((position) => asked[position]));
    if (retry) {
      const next = {
        ...job,
        attempt: job.attempt + 1,
        outcomes: outcomes.map((outcome, index) => (again.has(index) ? null : outcome)),
      };
      await queue.enqueue('smtp.probe', next, {
        jobId: jobIdFor(job.key, 'smtp.probe', next.attempt),
        delayMs: retry.delayMs,
      });
    }
    await deliver(
      job,
      asked.filter((index) => !again.has(index)),
      outcomes,
      queue,
      retry ? { positions: [...again], retryAt: Date.now() + retry.delayMs } : null,
    );
    const answered = !retry && job.then.to === 'caller';
    return { probed: asked.length, outcomes: answered ? (outcomes as ProbeOutcome[]) : null };
  };
}

/**
 * Stage 3 (scoring-worker): confidence and verdict, then the result is stored and cached.
 * `observe`: each stored result, for the metrics.
 */
function concludeHandler(
  engine: VerificationEngine,
  store: ResultStore,
  knowledge: DomainKnowledge,
  observe: (result: VerificationResult) => void = () => undefined,
): JobHandler<'scoring.conclude'> {
  return async ({ request, inspection, outcome }) => {
    const [result] = await knowledge.conclude(engine, [inspection], [outcome]);
    // Independent writes: the answer waits for the slower one only.
    await Promise.all([store.save(request, result), knowledge.learn([result])]);
    observe(result);
    return result;
  };
}

/** Stage 1's job (inspectHandler). */
@JobHandlerFor('dns.inspect')
export class InspectHandler implements StageHandler<'dns.inspect'> {
  readonly handle: JobHandler<'dns.inspect'>;

  constructor(@Inject(ENGINE) engine: VerificationEngine) {
    this.handle = inspectHandler(engine);
  }
}

/** Stage 2's job (probeHandler), counting each fresh outcome by reply class and provider. */
@JobHandlerFor('smtp.probe')
export class ProbeHandler implements StageHandler<'smtp.probe'> {
  readonly handle: JobHandler<'smtp.probe'>;

  constructor(@Inject(ENGINE) engine: VerificationEngine, metrics: Metrics) {
    this.handle = probeHandler(engine, ({ probe: outcome }, job) => {
      metrics.smtpOutcomes.inc({
        class: outcome.replyClass ?? outcome.failure ?? 'none',
        provider: job.facts.provider ?? 'other',
      });
    });
  }
}

/** Stage 3's job for a single check (concludeHandler), counting each result. */
@JobHandlerFor('scoring.conclude')
export class ConcludeHandler implements StageHandler<'scoring.conclude'> {
  readonly handle: JobHandler<'scoring.conclude'>;

  constructor(
    @Inject(ENGINE) engine: VerificationEngine,
    store: ResultStore,
    knowledge: DomainKnowledge,
    metrics: Metrics,
  ) {
    this.handle = concludeHandler(engine, store, knowledge, metrics.countCheck);
  }
}
