import { Inject } from '@nestjs/common';
import { RESULT_CACHE, resultKey, type ResultCache } from '@mailguard/cache';
import { APP_CONFIG, type AppConfig } from '@mailguard/config';
import { ENGINE, VerificationEngine, type Inspection, type VerificationResult } from '@mailguard/engine';
import { DomainKnowledge } from '@mailguard/feedback';
import { Metrics } from '@mailguard/metrics';
import {
  JobHandedBack,
  jobIdFor,
  JobHandlerFor,
  probeJob,
  UNSTOPPED,
  type GroupScoringPayload,
  type JobHandler,
  type StageContext,
  type StageHandler,
} from '@mailguard/queue';
import { FeedCheckpoints, FeedPlan } from './feed-plan';
import { ListStore, type PendingRow, type StoredList } from './list-store';
import { WebhookOutbox } from './webhook-outbox';

interface ListOptions {
  cacheTtlSeconds: number;
}

/**
 * Addresses of one domain asked in one SMTP session: five transactions of 100 back to back (more
 * where a host caps recipients), so a big provider's five sessions at a time spend their round trips
 * on RCPTs rather than on connecting, greeting and TLS.
 */
const GROUP_SIZE = 500;
/** Rows read per round of the feed, and groups inspected at once. */
const FEED_BATCH = 5_000;
const FEED_CONCURRENCY = 4;
/** While a list runs, its feed comes back this often to redo rows whose jobs were lost. */
const SWEEP_MS = 60_000;
const INSPECT_BUDGET_MS = 60_000;

/**
 * The root of a group's job ids names the feed round that sent it: within a round re-adding a stage
 * is a no-op, while a later round's re-dispatch of the same rows runs again (BullMQ ignores an id it
 * still keeps, even as a failed job).
 */
const groupKey = (listId: string, round: string, rows: number[]) => `${listId}.${round}.${rows[0]}`;

function restore(payload: GroupScoringPayload): Inspection[] {
  return payload.inspections.map((inspection) => ({ ...inspection, facts: payload.facts }));
}

/**
 * Sends a finished list's webhook now rather than at the next poll of a sender: the delivery is
 * already in the outbox (written as the list ended), which owns its retries, so the job has none.
 */
export async function announce(list: StoredList, queue: StageContext): Promise<void> {
  if (!list.row.webhookUrl) return;
  await queue.enqueue(
    'webhook.deliver',
    { listId: list.row.id },
    { jobId: `${list.row.id}.webhook`, transient: true, retry: { attempts: 1, backoffMs: 0 } },
  );
}

/** Queues the list's feed: one per list at a time, whoever asks (its id is the list's, kept only while it waits or runs). */
export function feedList(listId: string, queue: StageContext): Promise<void> {
  return queue.enqueue('list.feed', { listId }, { jobId: `${listId}.feed`, transient: true });
}

/**
 * Sends the feed to every running list now and then every SWEEP_MS, from a timer of the process
 * rather than a job that queues its successor: a chain of jobs breaks for good when one link fails
 * through an outage, a timer tries again on its next tick (list workers side by side send one feed
 * per list between them, see feedList). `jobsLost` (one process, whose jobs lived in its memory):
 * at the first sweep every unsettled row is dispatched again.
 */
export function startSweeps(
  store: ListStore,
  queue: StageContext,
  options: { jobsLost: boolean; onError(error: unknown): void },
): { stop(): void } {
  let jobsLost = options.jobsLost;
  const sweep = async () => {
    for (const listId of await store.running(jobsLost)) await feedList(listId, queue);
    jobsLost = false;
  };
  const tick = () => void sweep().catch(options.onError);
  tick();
  const timer = setInterval(tick, SWEEP_MS).unref();
  return { stop: () => clearInterval(timer) };
}

/**
 * The list worker: reads the list's unsettled rows, its domains interleaved (FeedPlan), inspects
 * each group (DNS once per domain through the domain cache) and sends it on: to the SMTP queue as
 * one probe (the smtp job of every check, greylisting retried as delayed jobs by the one policy), or
 * straight to scoring when there is no mail host to ask. FEED_CONCURRENCY groups are inspected at
 * once, the next round of rows read as soon as one of them wants a group and none is left.
 *
 * A feed lasts as long as its list, so it checkpoints: as groups' jobs are queued, each domain is
 * marked dispatched in Postgres through its last row queued with none before it outstanding
 * (FeedCheckpoints), and a feed (this one taken up again, or the next) reads only rows past the
 * marks. When its process shuts down (`run.stopping`) it takes no more groups, finishes those it
 * holds, and hands the job back (JobHandedBack) for another list-worker to go on from the marks: no
 * row is sent twice. A feed whose process was killed comes back through stalled-job
 * recovery and goes on from the marks likewise; the groups it held at that moment may go again.
 * Once a feed has read every row, the list is fed: the sweeps' feeds read nothing more until the
 * list goes quiet, and then only the rows whose jobs were lost (ListStore.feedScope).
 */
function feedHandler(engine: VerificationEngine, store: ListStore): JobHandler<'list.feed'> {
  return async ({ listId }, queue, run = UNSTOPPED) => {
    if (run.stopping.aborted) throw new JobHandedBack('list.feed');
    const list = await store.start(listId);
    const scope = list && (await store.feedScope(list.row));
    if (!scope) return { dispatched: 0 };
    const round = Date.now().toString(36);
    const plan = new FeedPlan(await store.pendingByDomain(listId, scope, GROUP_SIZE), GROUP_SIZE);
    const own = plan.domains;
    const groups: PendingRow[][] = [];
    const checkpoints = new FeedCheckpoints();
    let reading: Promise<boolean> | null = null;
    /** Every stream of the plan is done: each of its rows has been read. */
    let fed = false;
    /** Reads the plan's next round into `groups`; false once every stream is done. */
    const readRound = async (): Promise<boolean> => {
      // A list paused (its account suspended) or ended meanwhile gets no more rows from this feed.
      if (!(await store.feeding(listId))) return false;
      const reads = plan.next(FEED_BATCH / GROUP_SIZE);
      if (reads.length === 0) {
        fed = true;
        return false;
      }
      const small = reads.find((read) => read.stream.domain === null);
      const big = reads.filter((read) => read.stream.domain !== null);
      const [together, alone] = await Promise.all([
        small ? store.undispatched(listId, scope, small.take, small.stream.after, own) : [],
        big.length > 0
          ? store.undispatchedOf(
              listId,
              scope,
              big.map(({ stream, take }) => ({ domain: stream.domain as string, after: stream.after?.row ?? 0, take })),
            )
          : [],
      ]);
      if (small) plan.advance(small, together);
      for (const read of big)
        plan.advance(
          read,
          alone.filter((row) => row.domain === read.stream.domain),
        );
      for (const row of [...alone, ...together]) {
        const last = groups[groups.length - 1];
        if (last && last[0].domain === row.domain && last.length < GROUP_SIZE) last.push(row);
        else {
          const group = [row];
          groups.push(group);
          checkpoints.read(group);
        }
      }
      return true;
    };
    let failed = false;
    /** Every row of the plan has been read (so a stop now leaves nothing behind). */
    let exhausted = false;
    const nextGroup = async (): Promise<PendingRow[] | null> => {
      while (groups.length === 0 && !failed && !run.stopping.aborted) {
        reading ??= readRound().finally(() => (reading = null));
        if (!(await reading)) {
          exhausted = true;
          return null;
        }
      }
      return failed || run.stopping.aborted ? null : (groups.shift() ?? null);
    };
    let dispatched = 0;
    // On a failure the others stop taking groups, and the job fails (to be retried) only once they
    // are done: a retry never runs beside the rest of the failed feed.
    const workers = await Promise.allSettled(
      Array.from({ length: FEED_CONCURRENCY }, async () => {
        try {
          for (let group = await nextGroup(); group; group = await nextGroup()) {
            await dispatch(engine, queue, listId, round, group);
            dispatched += group.length;
            const through = checkpoints.queued(group);
            if (through !== null) await store.markDispatched(listId, group[0].domain, through);
          }
        } catch (error) {
          failed = true;
          throw error;
        }
      }),
    );
    for (const worker of workers) if (worker.status === 'rejected') throw worker.reason;
    // Stopped with rows left: every group taken is queued and marked, the rest is the next feed's.
    if (run.stopping.aborted && !(exhausted && groups.length === 0)) throw new JobHandedBack('list.feed');
    // Every row read is queued and marked: until the list goes quiet, sweeps have nothing to read.
    if (fed) await store.fed(listId);
    return { dispatched };
  };
}

/** Inspects one group and sends it on (SMTP, or scoring when there is no mail host). */
async function dispatch(
  engine: VerificationEngine,
  queue: StageContext,
  listId: string,
  round: string,
  group: PendingRow[],
): Promise<void> {
  const deadlineAt = Date.now() + INSPECT_BUDGET_MS;
  const inspections = await engine.inspectGroup(
    group.map((row) => row.email),
    { deadlineAt },
  );
  const probe = inspections.flatMap((inspection, index) => (inspection.needsProbe ? [index] : []));
  const direct = inspections.flatMap((inspection, index) => (inspection.needsProbe ? [] : [index]));
  if (probe.length > 0) {
    const rows = probe.map((index) => group[index].row);
    const key = groupKey(listId, round, rows);
    const job = probeJob(
      key,
      probe.map((index) => inspections[index]),
      { deadlineAt: null },
      { to: 'list', listId, round, rows },
    );
    await queue.enqueue('smtp.probe', job, { jobId: jobIdFor(key, 'smtp.probe') });
  }
  if (direct.length > 0) {
    const rows = direct.map((index) => group[index].row);
    const payload = {
      listId,
      round,
      rows,
      facts: null,
      inspections: direct.map((index) => inspections[index]),
      outcomes: direct.map(() => null),
    };
    await queue.enqueue('scoring.concludeGroup', payload, {
      jobId: jobIdFor(groupKey(listId, round, rows), 'scoring.concludeGroup'),
    });
  }
}

/**
 * The scoring worker's part: verdicts, then the rows settle (and are paid for) once.
 * `observe`: each settled row's result, for the metrics.
 */
function concludeGroupHandler(
  engine: VerificationEngine,
  store: ListStore,
  cache: ResultCache,
  knowledge: DomainKnowledge,
  options: ListOptions,
  observe: (result: VerificationResult) => void = () => undefined,
): JobHandler<'scoring.concludeGroup'> {
  return async (payload, queue) => {
    if (payload.greylisted)
      await store.greylistWait(payload.listId, payload.greylisted.rows, new Date(payload.greylisted.retryAt));
    // Only rows waiting for their retry, none settled: nothing more to do.
    if (payload.rows.length === 0) return { settled: 0 };
    const inspections = await engine.withAvatars(payload.facts ? restore(payload) : payload.inspections);
    const results = await knowledge.conclude(engine, inspections, payload.outcomes);
    const { rows, finished } = await store.settle(
      payload.listId,
      results.map((result, index) => ({ row: payload.rows[index], result })),
    );
    // Only the rows this run settled: a retried group's rows are counted once.
    const counted = new Set(rows);
    results.forEach((result, index) => {
      if (counted.has(payload.rows[index])) observe(result);
    });
    await cache.setMany(
      results
        .filter((result) => result.reachable !== 'unknown')
        .map((result) => ({ key: resultKey(result.email), result })),
      options.cacheTtlSeconds,
    );
    await knowledge.learn(results);
    if (finished) await announce(finished, queue);
    return { settled: results.length };
  };
}

/** The first attempt of a finished list's webhook (see announce); a failure is the outbox's to retry. */
function webhookHandler(outbox: WebhookOutbox): JobHandler<'webhook.deliver'> {
  return ({ listId }) => outbox.sendDue(listId);
}

/** The list worker's job (feedHandler). */
@JobHandlerFor('list.feed')
export class FeedHandler implements StageHandler<'list.feed'> {
  readonly handle: JobHandler<'list.feed'>;

  constructor(@Inject(ENGINE) engine: VerificationEngine, store: ListStore) {
    this.handle = feedHandler(engine, store);
  }
}

/** The scoring worker's job for a list's group (concludeGroupHandler), counting each settled row's result. */
@JobHandlerFor('scoring.concludeGroup')
export class ConcludeGroupHandler implements StageHandler<'scoring.concludeGroup'> {
  readonly handle: JobHandler<'scoring.concludeGroup'>;

  constructor(
    @Inject(ENGINE) engine: VerificationEngine,
    store: ListStore,
    @Inject(RESULT_CACHE) cache: ResultCache,
    knowledge: DomainKnowledge,
    @Inject(APP_CONFIG) config: AppConfig,
    metrics: Metrics,
  ) {
    const options = { cacheTtlSeconds: config.checks.cacheTtlSeconds };
    this.handle = concludeGroupHandler(engine, store, cache, knowledge, options, metrics.countCheck);
  }
}

/** The list worker's webhook job (webhookHandler). */
@JobHandlerFor('webhook.deliver')
export class WebhookHandler implements StageHandler<'webhook.deliver'> {
  readonly handle: JobHandler<'webhook.deliver'>;

  constructor(outbox: WebhookOutbox) {
    this.handle = webhookHandler(outbox);
  }
}
