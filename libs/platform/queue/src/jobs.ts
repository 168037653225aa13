import type { UsageKind } from '@mailguard/db';
import {
  MAX_GREYLIST_RETRIES,
  type DomainFacts,
  type Inspection,
  type ProbeOutcome,
  type ProbeRequest,
  type VerificationResult,
} from '@mailguard/engine';

/** One address to check, as it travels through the pipeline. */
export interface CheckRequest {
  /** Unique per check: the stored verification's id, and the root of every job id of the check. */
  requestId: string;
  email: string;
  /** Epoch ms by which the check must answer. */
  deadlineAt: number;
  /** Who pays and owns the stored result; null for the service's own checks (sign-up). */
  accountId: string | null;
  kind: UsageKind | null;
}

/** Where a probe's outcomes go once its addresses are settled (answered, or out of greylisting retries). */
export type ProbeNext =
  /**
   * A single check: on to `scoring.conclude`. `join`: the job's inspection is the DNS stage's early
   * one (mail hosts only); the full one comes from that stage, joined to the outcome (`StageContext.join`).
   */
  | { to: 'check'; request: CheckRequest; join?: boolean }
  /** Rows of a list: on to `scoring.concludeGroup`, as soon as each is settled. */
  | { to: 'list'; listId: string; round: string; rows: number[] }
  /** The finder and domain insight: the job's result, which the caller waits for (CheckPipeline.probe). */
  | { to: 'caller' };

/**
 * The one SMTP job: addresses at one domain asked in one session (a single check is a group of
 * one). Inspections travel without their domain facts, which the job carries once. A greylisted
 * address is asked again in a delayed job of the same key (the next `attempt`), carrying what the
 * earlier attempts settled.
 */
export interface SmtpPayload {
  /** Root of the probe's job ids: the check's request id, the list group's, the finder's request id. */
  key: string;
  /** Epoch ms by which the answer is due; null for list rows, which nobody waits for. */
  deadlineAt: number | null;
  facts: DomainFacts;
  inspections: Inspection[];
  stopAtAccepted?: number;
  /** Greylisting retries so far (each a delayed job). */
  attempt: number;
  /** One per address: what earlier attempts settled; null where this attempt asks. */
  outcomes: Array<ProbeOutcome | null>;
  then: ProbeNext;
}

export interface SmtpResult {
  /** Addresses this attempt asked. */
  probed: number;
  /** Every address's outcome once all are settled, for a caller (`then.to === 'caller'`); else null. */
  outcomes: ProbeOutcome[] | null;
}

export interface ScoringPayload {
  request: CheckRequest;
  inspection: Inspection;
  outcome: ProbeOutcome | null;
}

/** A bulk list to process (or to sweep for rows whose jobs were lost). */
export interface ListPayload {
  listId: string;
}

/** Rows of a list at one domain, settled together. Inspections travel without the domain facts, which the group carries once. */
export interface GroupScoringPayload {
  listId: string;
  /** The feed round that sent the group: a later round's re-dispatch gets job ids of its own. */
  round: string;
  rows: number[];
  facts: DomainFacts | null;
  inspections: Inspection[];
  /** One per row; null where SMTP was not asked. */
  outcomes: Array<ProbeOutcome | null>;
  /** Rows of the same group sent back to wait for a greylisting retry due at `retryAt` (epoch ms). */
  greylisted?: { rows: number[]; retryAt: number };
}

/** The first attempt of a finished list's webhook, whose delivery waits in the outbox (libs/product/lists). */
export interface WebhookPayload {
  listId: string;
}

/**
 * Every job of the service, declared once: its queue, its payload and its result. Drivers, workers
 * and handlers are typed from this map, so a payload can never drift from its handler.
 * The flow per address: dns.inspect → smtp.probe (only when there is a mail host to ask;
 * greylisting re-queues it with a delay) → scoring.conclude. Lists: list.feed → smtp.probe (a group
 * per domain) → scoring.concludeGroup. The finder and domain insight: smtp.probe, awaited.
 */
export interface JobMap {
  'dns.inspect': { queue: 'dns'; payload: CheckRequest; result: Inspection };
  'smtp.probe': { queue: 'smtp'; payload: SmtpPayload; result: SmtpResult };
  'scoring.conclude': { queue: 'scoring'; payload: ScoringPayload; result: VerificationResult };
  'list.feed': { queue: 'lists'; payload: ListPayload; result: { dispatched: number } };
  'scoring.concludeGroup': { queue: 'scoring'; payload: GroupScoringPayload; result: { settled: number } };
  'webhook.deliver': {
    queue: 'lists';
    payload: WebhookPayload;
    result: { delivered: number; retrying: number; failed: number };
  };
}

export type JobName = keyof JobMap;
export type QueueName = JobMap[JobName]['queue'];
export type JobPayload<N extends JobName> = JobMap[N]['payload'];
export type JobResult<N extends JobName> = JobMap[N]['result'];

export const JOB_QUEUES: { [N in JobName]: JobMap[N]['queue'] } = {
  'dns.inspect': 'dns',
  'smtp.probe': 'smtp',
  'scoring.conclude': 'scoring',
  'list.feed': 'lists',
  'scoring.concludeGroup': 'scoring',
  'webhook.deliver': 'lists',
};

export const QUEUE_NAMES: QueueName[] = ['dns', 'smtp', 'scoring', 'lists'];

/** How often a failed job is tried again: `attempts` in all, the delays doubling from `backoffMs`. */
export interface RetryPolicy {
  attempts: number;
  /** First delay; each next one doubles. */
  backoffMs: number;
}

/**
 * Every job's retries unless it names its own, in both drivers: 1 + 2 + … + 64 s, so a
 * job tried while Redis or Postgres is down is still being tried two minutes later — it outlives
 * a minute-long outage instead of failing for good within seconds.
 */
export const JOB_RETRY: RetryPolicy = { attempts: 8, backoffMs: 1_000 };

/** The job whose result is the check's answer. */
export const FINAL_JOB = 'scoring.conclude' satisfies JobName;

/** Job ids are derived from the request, so re-adding a stage (a retry, a restarted worker) is a no-op. */
export function jobIdFor(requestId: string, name: JobName, attempt = 0): string {
  return `${requestId}.${name}.${attempt}`;
}

/** Every job id a probe may complete under: its first attempt and each greylisting retry. */
export function probeJobIds(key: string): string[] {
  return Array.from({ length: MAX_GREYLIST_RETRIES + 1 }, (_, attempt) => jobIdFor(key, 'smtp.probe', attempt));
}

/** A caller's answer from a probe job's result: every outcome, once a job has them all. */
export function probeAnswer(result: unknown): ProbeOutcome[] | null {
  return (result as SmtpResult).outcomes;
}

/** The first attempt of a probe: inspections without their facts, which the job carries once. */
export function probeJob(
  key: string,
  inspections: Inspection[],
  options: { deadlineAt: number | null; stopAtAccepted?: number },
  then: ProbeNext,
): SmtpPayload {
  return {
    key,
    deadlineAt: options.deadlineAt,
    facts: inspections[0].facts as DomainFacts,
    inspections: inspections.map((inspection) => ({ ...inspection, facts: null })),
    ...(options.stopAtAccepted ? { stopAtAccepted: options.stopAtAccepted } : {}),
    attempt: 0,
    outcomes: inspections.map(() => null),
    then,
  };
}

export interface EnqueueOptions {
  jobId: string;
  delayMs?: number;
  retry?: RetryPolicy;
  /** Kept only while it waits or runs: adding the id again meanwhile is a no-op, afterwards it runs again. */
  transient?: boolean;
}

export interface JoinOptions extends EnqueueOptions {
  /** How long the parts given wait for the others (then they are let go). */
  ttlMs: number;
}

export interface StageContext {
  enqueue<N extends JobName>(name: N, payload: JobPayload<N>, options: EnqueueOptions): Promise<void>;
  /**
   * Gives some fields of a job whose payload several stages make (SMTP's outcome, the DNS stage's
   * full inspection): the job is added, once, by whichever call brings the last of `parts`.
   */
  join<N extends JobName>(
    name: N,
    given: Partial<JobPayload<N>>,
    parts: Array<keyof JobPayload<N>>,
    options: JoinOptions,
  ): Promise<void>;
}

/** What a handler is told of the process running it. */
export interface JobRun {
  /**
   * Aborted once the process shuts down. A job that could run on for long (a list's feed) stops at
   * its next checkpoint and throws JobHandedBack, so that another process takes it up from there
   * instead of the shutdown waiting for it (or cutting it off).
   */
  readonly stopping: AbortSignal;
}

/** The run of a job whose process never asks it to stop (a handler called on its own). */
export const UNSTOPPED: JobRun = { stopping: new AbortController().signal };

/**
 * Thrown by a handler that stopped at a checkpoint because its process shuts down: the job goes
 * back to its queue as it is (not an attempt, not a failure) for the next process to take up.
 */
export class JobHandedBack extends Error {
  constructor(job: JobName) {
    super(`${job} handed back: its process is shutting down`);
    this.name = 'JobHandedBack';
  }
}

export type JobHandler<N extends JobName> = (
  payload: JobPayload<N>,
  context: StageContext,
  run?: JobRun,
) => Promise<JobResult<N>>;
export type JobHandlers = { [N in JobName]: JobHandler<N> };

/** Refuses a handler table that misses a declared job or has one too many (checked at boot). */
export function assertHandlers(handlers: Partial<JobHandlers>, names: JobName[]): void {
  const given = Object.keys(handlers).sort();
  const wanted = [...names].sort();
  if (given.join() !== wanted.join()) {
    throw new Error(
      `job handlers do not match the declared jobs: declared ${wanted.join(', ')}; given ${given.join(', ')}`,
    );
  }
}

/** Injection token of the process's `CheckPipeline` (BullMQ, or every stage in process). */
export const CHECK_PIPELINE = Symbol('CHECK_PIPELINE');

/** Where the gateway sends checks: this process (embedded default) or the workers over BullMQ. */

export interface CheckPipeline {
  /** The result, or null when the deadline passed first. */
  verify(request: CheckRequest): Promise<VerificationResult | null>;
  /**
   * Sends a probe to the smtp queue (the finder, domain insight: the gateway never opens an SMTP
   * session of its own) and waits for its outcomes, greylisting retries included, up to the
   * request's deadline; null when it passed first. `key`: unique per request, the root of the job ids.
   */
  probe(key: string, request: ProbeRequest): Promise<ProbeOutcome[] | null>;
  /** Where other jobs start (a list's feed). */
  readonly jobs: StageContext;
  /** Readiness: the transport answers. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
