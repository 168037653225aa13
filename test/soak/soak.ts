import { startLab, type Lab } from '../lab';
import { apiClient } from '../support/api-client';
import { runCycle, SURFACES, Tally, until, WebhookReceiver } from './cycle';
import { egressBlockEpisode } from './egress-block';
import { metricSum, SoakService, type Driver } from './service';
import { judgeGrowth, type GrowthRule } from './trend';
import { soakWorld, type SoakWorld } from './world';

/**
 * The soak: ONE long-lived MailGuard (per driver) against the lab's every behaviour, cycle after
 * cycle of mixed traffic. After each cycle, once idle: (a) no MX slot is held, (b) a never-asked
 * known mailbox at every strict domain answers definitely, (c) no process logged an error or an
 * unhandled rejection, and the ledger adds up; over the run, (d) memory and event-loop delay do
 * not grow beyond noise. Mid-run, one cycle also has a provider refuse the egresses and accept them
 * again (egress-block.ts) between (a) and (b), and (a) is asserted again after it.
 */

export interface SoakOptions {
  driver: Driver;
  /** A number of cycles (the short form in `npm test`), or... */
  cycles?: number;
  /** ...cycles until this many minutes have passed (`npm run soak`). */
  minutes?: number;
  /** Traffic per cycle, in multiples of the short form's (default 1). */
  scale?: number;
  print(line: string): void;
}

export interface CycleFigures {
  cycle: number;
  seconds: number;
  /** By process name, after the cycle once idle. */
  rssMb: Record<string, number>;
  /** The heap in use right after the last full GC (before the first one: in use now). */
  heapMb: Record<string, number>;
  /** Event-loop delay p99 during the cycle's traffic, by process name. */
  lagMs: Record<string, number>;
  failures: string[];
}

export interface SoakReport {
  driver: Driver;
  cycles: CycleFigures[];
  /** Every failed assertion, prefixed with its cycle (or `run` for the trends). */
  failures: string[];
}

/** Longest wait for sessions to end once the traffic has: every session is bounded by SMTP timeouts well inside this. */
const IDLE_TIMEOUT_MS = 30_000;
/** "No process above 512 MB" (the lists benchmark's target) holds at every cycle. */
const RSS_CEILING_MB = 512;
const MB = 1024 * 1024;
/** Growth allowed per series, generous: the soak looks for leaks, not for noise. */
const RULES: Record<'rss' | 'heap' | 'lag', Omit<GrowthRule, 'warmup'>> = {
  rss: { ratio: 1.25, slack: 48 },
  heap: { ratio: 1.3, slack: 24 },
  lag: { ratio: 2, slack: 25 },
};

const SHORT: Record<string, string> = {
  gateway: 'gw',
  'dns-worker': 'dns',
  'smtp-worker': 'smtp',
  'scoring-worker': 'scoring',
  'list-worker': 'list',
};

export async function soak(options: SoakOptions): Promise<SoakReport> {
  // A timed run cannot do more than 12 cycles a minute: each has a list of hundreds of rows to settle.
  const maxCycles = options.cycles ?? Math.ceil((options.minutes ?? 30) * 12);
  const world = soakWorld(maxCycles);
  const lab = await startLab(world.scenario);
  let webhookSecret = '';
  const webhooks = new WebhookReceiver(() => webhookSecret);
  await webhooks.start();
  let service: SoakService | undefined;
  const report: SoakReport = { driver: options.driver, cycles: [], failures: [] };
  /** mailguard_mx_lease_expired_total so far (a counter). */
  let leasesExpired = 0;
  try {
    service = await SoakService.start(options.driver, lab);
    const signup = await apiClient(service.url)<{ apiKey: string; account: { id: string }; webhookSecret: string }>(
      'POST',
      '/v1/accounts',
      { body: { email: 'soak@catchall0.soak' } },
    );
    if (signup.status !== 201) throw new Error(`sign-up answered ${signup.status}: ${JSON.stringify(signup.body)}`);
    webhookSecret = signup.body.webhookSecret;
    await service.database.setBalance(signup.body.account.id, 100_000_000);
    const context = { url: service.url, key: signup.body.apiKey, domains: world.domains, webhooks };
    options.print(
      `soak ${options.driver}: ${service.processes.map((entry) => entry.name).join(' + ')}, ${world.domains.length} lab domains, ${options.cycles ? `${options.cycles} cycles` : `${options.minutes} minutes`}`,
    );

    const started = Date.now();
    const runMs = (options.minutes ?? 30) * 60_000;
    let episodeRan = false;
    for (let cycle = 1; cycle <= maxCycles; cycle++) {
      if (!options.cycles && Date.now() - started >= runMs) break;
      // The first cycle past the middle of the run: later cycles see whether the domain stays answered.
      const episode: boolean =
        !episodeRan && (options.cycles ? cycle >= Math.ceil(options.cycles / 2) : Date.now() - started >= runMs / 2);
      episodeRan ||= episode;
      const figures = await runOne(service, lab, world, context, webhooks, cycle, episode);
      report.cycles.push(figures);
      report.failures.push(...figures.failures.map((failure) => `cycle ${cycle}: ${failure}`));
      // A process that died leaves nothing further to learn; the short form stops at its first failing cycle.
      if (
        service.processes.some(
          (entry) => entry.process.child.exitCode !== null || entry.process.child.signalCode !== null,
        )
      )
        break;
      if (options.cycles && figures.failures.length > 0) break;
    }
    if (!episodeRan && report.failures.length === 0)
      report.failures.push('run: no cycle started past the middle of the run, so no egress was blocked');
    const { summary, failures } = trends(report.cycles);
    summary.forEach((line) => options.print(line));
    for (const failure of failures) {
      report.failures.push(`run: ${failure}`);
      options.print(`  FAIL run: ${failure}`);
    }
  } finally {
    await service?.stop();
    await webhooks.stop();
    await lab.stop();
  }
  return report;

  async function runOne(
    service: SoakService,
    lab: Lab,
    world: SoakWorld,
    context: Parameters<typeof runCycle>[0],
    webhooks: WebhookReceiver,
    cycle: number,
    episode: boolean,
  ): Promise<CycleFigures> {
    const failures: string[] = [];
    const cycleStarted = performance.now();
    lab.resetStats();
    const tally = await runCycle(context, cycle, options.scale);
    failures.push(...tally.unexpected);
    // Event-loop delay since the previous scrape, i.e. during this cycle's traffic (prom-client resets it on each read).
    const lagMs: Record<string, number> = {};
    for (const entry of service.processes)
      lagMs[entry.name] = (metricSum(await service.metrics(entry), 'nodejs_eventloop_lag_p99_seconds') ?? 0) * 1000;

    // (a) Once idle, every slot is back: the gauge, the Redis gate's leases, and the lab's open sessions.
    let held: number | null = null;
    const idleProblem = () =>
      until(async () => {
        held = await service.gateSum('mailguard_mx_slots_held');
        const leases = await service.redisLeases();
        const open = world.scenario.servers
          ? Object.keys(world.scenario.servers).filter(
              (host) => !world.scenario.servers?.[host].down && lab.stats(host).active > 0,
            )
          : [];
        if (held === 0 && Object.keys(leases).length === 0 && open.length === 0) return null;
        return `slots held ${held ?? '(no mailguard_mx_slots_held gauge)'}, Redis leases ${JSON.stringify(leases)}, lab sessions open at ${open.join(', ') || 'none'}`;
      }, IDLE_TIMEOUT_MS);
    const idle = await idleProblem();
    if (idle) failures.push(`not idle ${IDLE_TIMEOUT_MS} ms after the traffic: ${idle}`);
    // Nor does an agent's session leave its transport behind.
    const transports = metricSum(await service.metrics(service.processes[0]), 'mailguard_mcp_transports_open');
    if (transports !== 0)
      failures.push(`MCP transports open once idle: ${transports ?? '(no mailguard_mcp_transports_open gauge)'}`);

    // Idle first: no session kept open by the traffic is reused by the episode, whose sessions are counted.
    if (episode) {
      const outcome = await egressBlockEpisode(service, lab, `c${cycle}`);
      options.print(`[${options.driver}] cycle ${cycle}: ${outcome.line}`);
      failures.push(...outcome.failures);
      const after = await idleProblem();
      if (after) failures.push(`not idle ${IDLE_TIMEOUT_MS} ms after the egress block: ${after}`);
    }

    // (b) A known mailbox at every strict domain, never asked before, answers definitely. With every
    // slot back (a) and one check per domain (no host is asked beyond its cap), none waits for a slot;
    // and no lease ran out unreturned, which would free a forgotten slot only seconds later.
    const probes = await probeStrictDomains(service, world, context.key, cycle);
    failures.push(...probes);
    const expired = (await service.gateSum('mailguard_mx_lease_expired_total')) ?? 0;
    if (expired > leasesExpired)
      failures.push(`${expired - leasesExpired} slot leases expired unreturned (mailguard_mx_lease_expired_total)`);
    leasesExpired = expired;

    // (c) Nothing an operator would be paged for, and the ledger adds up.
    const output = service.scanOutput();
    failures.push(...output.problems);
    failures.push(...(await ledgerProblems(service)));
    const undelivered = await until(async () => {
      const missing = tally.completedLists.filter((id) => !webhooks.deliveries.has(id));
      return missing.length === 0 ? null : `no webhook for completed list ${missing.join(', ')}`;
    }, IDLE_TIMEOUT_MS);
    if (undelivered) failures.push(undelivered);
    failures.push(...webhooks.bad.splice(0));
    for (const [id, count] of webhooks.deliveries)
      if (count > 1) failures.push(`list ${id} webhook delivered ${count} times`);

    const rssMb: Record<string, number> = {};
    const heapMb: Record<string, number> = {};
    for (const entry of service.processes) {
      const text = await service.metrics(entry);
      rssMb[entry.name] = (metricSum(text, 'process_resident_memory_bytes') ?? 0) / MB;
      // The live heap: the heap in use between GCs rises and falls with GC pacing, for minutes at 3×.
      heapMb[entry.name] = (metricSum(text, 'mailguard_heap_after_full_gc_bytes') ?? 0) / MB;
      if (rssMb[entry.name] > RSS_CEILING_MB)
        failures.push(`${entry.name} RSS ${rssMb[entry.name].toFixed(0)} MB, above ${RSS_CEILING_MB} MB`);
    }
    const figures: CycleFigures = {
      cycle,
      seconds: (performance.now() - cycleStarted) / 1000,
      rssMb,
      heapMb,
      lagMs,
      failures,
    };
    options.print(figureLine(options.driver, figures, tally, held, output.warnings));
    for (const failure of failures) options.print(`  FAIL cycle ${cycle}: ${failure}`);
    return figures;
  }
}

/** One uncached check per strict domain at once (no host is asked more than its slots allow), each definite. */
async function probeStrictDomains(
  service: SoakService,
  world: SoakWorld,
  key: string,
  cycle: number,
): Promise<string[]> {
  const api = apiClient(service.url);
  const strict = world.domains.filter((domain) => domain.role === 'strict');
  const answers = await Promise.all(
    strict.map(async (domain) => {
      const email = world.probeAddress(domain.name, cycle);
      const answer = await api<{ reachable?: string; reason?: string; subStatus?: string; cached?: boolean }>(
        'GET',
        `/v1/email-validation/${encodeURIComponent(email)}`,
        { key },
      );
      if (answer.status !== 200) return `${email} (${domain.behaviour}) answered ${answer.status}`;
      const { reachable, reason, subStatus, cached } = answer.body;
      if (reachable === 'unknown' || cached || reason !== 'accepted_email')
        return `${email} (${domain.behaviour}) answered ${reason}/${subStatus ?? '-'}, reachable ${reachable}${cached ? ', cached' : ''}`;
      return null;
    }),
  );
  return answers.filter((answer): answer is string => answer !== null);
}

/** Every account's ledger sums to its balance, its last row says that balance, and it holds only what its running lists hold. */
async function ledgerProblems(service: SoakService): Promise<string[]> {
  const rows = await service.database.query<{
    id: string;
    balance: number;
    held: number;
    ledger: string;
    last_after: number | null;
    running_held: string;
  }>(`
    SELECT a.id, a.balance, a.held,
      (SELECT coalesce(sum(delta), 0) FROM credit_transactions t WHERE t.account_id = a.id) AS ledger,
      (SELECT balance_after FROM credit_transactions t WHERE t.account_id = a.id ORDER BY id DESC LIMIT 1) AS last_after,
      (SELECT coalesce(sum(credits_held), 0) FROM lists l WHERE l.account_id = a.id AND l.status IN ('queued', 'processing')) AS running_held
    FROM accounts a`);
  return rows
    .filter(
      (row) =>
        Number(row.ledger) !== row.balance || row.last_after !== row.balance || Number(row.running_held) !== row.held,
    )
    .map(
      (row) =>
        `account ${row.id}: balance ${row.balance}, ledger sum ${row.ledger}, last balanceAfter ${row.last_after}, held ${row.held} while running lists hold ${row.running_held}`,
    );
}

function figureLine(
  driver: Driver,
  figures: CycleFigures,
  tally: Tally,
  held: number | null,
  warnings: number,
): string {
  const requests = SURFACES.map((surface) => `${surface} ${tally.requests[surface]}`).join(' ');
  const statuses = Object.entries(tally.statuses)
    .map(([status, count]) => `${status}:${count}`)
    .join(' ');
  const per = (values: Record<string, number>, digits = 0) =>
    Object.entries(values)
      .map(([name, value]) => `${SHORT[name] ?? name} ${value.toFixed(digits)}`)
      .join(' ');
  return [
    `[${driver}] cycle ${figures.cycle} (${figures.seconds.toFixed(1)} s)`,
    `requests ${requests}`,
    `status ${statuses}, unknown ${tally.unknown} (strict domains ${tally.unknownStrict})`,
    `p50 ${tally.percentile(50).toFixed(0)} ms p99 ${tally.percentile(99).toFixed(0)} ms`,
    `slots held ${held ?? '-'}`,
    `warnings logged ${warnings}`,
    `RSS MB ${per(figures.rssMb)}`,
    `live heap MB ${per(figures.heapMb)}`,
    `loop p99 ms ${per(figures.lagMs, 1)}`,
  ].join(' | ');
}

/**
 * (d) Memory and event-loop delay per process, judged over the run (needs six cycles after
 * warm-up); one summary line per process: first and last third's medians and the slope per cycle.
 */
function trends(cycles: CycleFigures[]): { summary: string[]; failures: string[] } {
  const summary: string[] = [];
  const failures: string[] = [];
  const warmup = Math.max(2, Math.floor(cycles.length / 10));
  const names = Object.keys(cycles[0]?.rssMb ?? {});
  for (const name of names) {
    const parts: string[] = [];
    for (const [series, unit, values] of [
      ['rss', 'RSS MB', cycles.map((figures) => figures.rssMb[name])],
      ['heap', 'live heap MB', cycles.map((figures) => figures.heapMb[name])],
      ['lag', 'loop p99 ms', cycles.map((figures) => figures.lagMs[name])],
    ] as const) {
      const growth = judgeGrowth(values, { warmup, ...RULES[series] });
      if (!growth) continue;
      parts.push(
        `${unit} ${growth.first.toFixed(0)} -> ${growth.last.toFixed(0)} (${growth.slope >= 0 ? '+' : ''}${growth.slope.toFixed(2)}/cycle)`,
      );
      if (growth.verdict) failures.push(`${name} ${unit} ${growth.verdict}`);
    }
    if (parts.length > 0)
      summary.push(`  trend ${name} over cycles ${warmup + 1}-${cycles.length}: ${parts.join(', ')}`);
  }
  return { summary, failures };
}
