import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ProberMonitor } from '@mailguard/prober';
import { providerLabel } from '@mailguard/prober';
import { PROVIDER_IDS } from '@mailguard/config';
import type { GateSnapshot, SessionGate } from '@mailguard/smtp';

/** Whether a `gc` performance entry is a full (mark-compact) collection. */
export function isFullGc(entry: PerformanceEntry): boolean {
  return (
    (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR
  );
}

/** The heap in use right after the process's last full GC, once there was one: one observer per process. */
let heapAfterFullGc: number | null = null;
let gcWatched = false;
function watchFullGcs(): void {
  if (gcWatched) return;
  gcWatched = true;
  new PerformanceObserver((entries) => {
    if (entries.getEntries().some(isFullGc)) heapAfterFullGc = getHeapStatistics().used_heap_size;
  }).observe({ entryTypes: ['gc'] });
}

/**
 * The Prometheus metrics of every MailGuard process, declared once. Each process registers the
 * default Node metrics plus the families below; a family that a process never touches stays empty.
 */
export class Metrics {
  readonly registry = new Registry();

  readonly httpRequests = new Counter({
    name: 'mailguard_http_requests_total',
    help: 'HTTP requests by route, method and status',
    labelNames: ['route', 'method', 'status'],
    registers: [this.registry],
  });
  readonly httpDuration = new Histogram({
    name: 'mailguard_http_request_duration_seconds',
    help: 'HTTP request latency by route and status',
    labelNames: ['route', 'method', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15],
    registers: [this.registry],
  });
  readonly credits = new Counter({
    name: 'mailguard_credits_total',
    help: 'Credits charged and refunded',
    labelNames: ['direction'],
    registers: [this.registry],
  });
  readonly chargesSwept = new Counter({
    name: 'mailguard_charges_swept_total',
    help: 'Charges their gateway never settled (it stopped mid-check), settled by the charge sweep: refunded, or kept (their answers had landed)',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  readonly mcpTransports = new Gauge({
    name: 'mailguard_mcp_transports_open',
    help: 'MCP streamable HTTP transports open now (one per POST /mcp in flight)',
    registers: [this.registry],
  });
  readonly mcpTransportsOpened = new Counter({
    name: 'mailguard_mcp_transports_opened_total',
    help: 'MCP streamable HTTP transports opened (one per POST /mcp)',
    registers: [this.registry],
  });
  readonly cache = new Counter({
    name: 'mailguard_result_cache_requests_total',
    help: 'Result cache look-ups by outcome (hit, miss)',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  readonly jobs = new Counter({
    name: 'mailguard_jobs_total',
    help: 'Jobs processed by queue, job and outcome',
    labelNames: ['queue', 'job', 'outcome'],
    registers: [this.registry],
  });
  readonly jobDuration = new Histogram({
    name: 'mailguard_job_duration_seconds',
    help: 'Job processing time by queue and job',
    labelNames: ['queue', 'job'],
    buckets: [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });
  readonly webhookAttempts = new Counter({
    name: 'mailguard_webhook_attempts_total',
    help: 'List webhook attempts by outcome (delivered; retrying: failed, to be tried again; failed: the last attempt failed)',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  readonly checks = new Counter({
    name: 'mailguard_checks_total',
    help: 'Checks concluded (single checks and list rows) by verdict and subStatus ("none" when it has none)',
    labelNames: ['status', 'sub_status'],
    registers: [this.registry],
  });
  readonly smtpOutcomes = new Counter({
    name: 'mailguard_smtp_outcomes_total',
    help: 'SMTP probe outcomes by reply class (or failure) and provider',
    labelNames: ['class', 'provider'],
    registers: [this.registry],
  });
  readonly queueDepth = new Gauge({
    name: 'mailguard_queue_depth',
    help: 'Jobs waiting, delayed and active per queue',
    labelNames: ['queue', 'state'],
    registers: [this.registry],
  });
  readonly slotWait = new Histogram({
    name: 'mailguard_mx_slot_wait_seconds',
    help: 'Time a probe waited for a per-MX session slot (0 when one was free)',
    buckets: [0, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly leasesExpired = new Counter({
    name: 'mailguard_mx_lease_expired_total',
    help: 'Slot leases taken back at expiry because their session never gave them back (a bug)',
    labelNames: ['host'],
    registers: [this.registry],
  });

  /** One concluded check; the scoring stage calls this with each result it stores (bound: passed as a callback). */
  readonly countCheck = (result: { status: string; subStatus: string | null }): void => {
    this.checks.inc({ status: result.status, sub_status: result.subStatus ?? 'none' });
  };

  /**
   * Gauges of a per-MX session gate, read when scraped: slots held and sessions open per MX host by
   * this process, and the cool-downs in force that it knows of.
   */
  watchGate(gate: SessionGate): void {
    gate.observe({
      waited: (_host, ms) => this.slotWait.observe(ms / 1000),
      expired: (host) => this.leasesExpired.inc({ host }),
    });
    const hosts = (read: (entry: GateSnapshot['hosts'][number]) => number) => (gauge: Gauge<'host'>) => {
      gauge.reset();
      for (const entry of gate.snapshot().hosts) gauge.set({ host: entry.host }, read(entry));
    };
    const slots = hosts((entry) => entry.slotsHeld);
    const sessions = hosts((entry) => entry.sessionsOpen);
    new Gauge({
      name: 'mailguard_mx_slots_held',
      help: 'Per-MX session slots this process holds now',
      labelNames: ['host'],
      registers: [this.registry],
      collect: function () {
        slots(this);
      },
    });
    new Gauge({
      name: 'mailguard_smtp_sessions_open',
      help: 'SMTP sessions this process has connected now, per MX host',
      labelNames: ['host'],
      registers: [this.registry],
      collect: function () {
        sessions(this);
      },
    });
    new Gauge({
      name: 'mailguard_mx_cool_downs',
      help: 'MX hosts left alone now (1 per host and reason), as this process knows',
      labelNames: ['host', 'reason'],
      registers: [this.registry],
      collect: function () {
        this.reset();
        for (const { host, reason } of gate.snapshot().coolDowns) this.set({ host, reason }, 1);
      },
    });
  }

  /**
   * The SMTP sessions kept open between probes, read when scraped: how many now (each is also in
   * `mailguard_smtp_sessions_open`), and how many probes began on one instead of connecting.
   */
  watchKeptSessions(pool: { readonly size: number; readonly reused: number }): void {
    new Gauge({
      name: 'mailguard_smtp_sessions_kept',
      help: 'SMTP sessions this process keeps open between probes now (also counted as open)',
      registers: [this.registry],
      collect: function () {
        this.set(pool.size);
      },
    });
    let counted = 0;
    new Counter({
      name: 'mailguard_smtp_sessions_reused_total',
      help: 'Probes that began on an SMTP session an earlier probe kept open, instead of connecting',
      registers: [this.registry],
      collect: function () {
        this.inc(pool.reused - counted);
        counted = pool.reused;
      },
    });
  }

  /**
   * The prober's standing, read when scraped (docs/production.md): each egress's usability per provider
   * (1 usable, 0 refused; MX domains that are no known provider's together as "other"), how many
   * egresses each provider has left, the last self-check's checks and the overall status.
   */
  watchProber(monitor: Pick<ProberMonitor, 'pool' | 'readinessNow' | 'report'>): void {
    const labels = [...PROVIDER_IDS, 'other'];
    new Gauge({
      name: 'mailguard_prober_egress_status',
      help: 'Whether an egress may carry probes to a provider now: 1 usable, 0 refused (blocked, backing off)',
      labelNames: ['egress', 'provider'],
      registers: [this.registry],
      collect: function () {
        this.reset();
        const refused = new Set(monitor.pool.blocks().map((block) => `${block.egress}|${providerLabel(block.key)}`));
        for (const egress of monitor.pool.egresses)
          for (const provider of labels)
            if (egress.providers === null || egress.providers.some((key) => providerLabel(key) === provider))
              this.set({ egress: egress.id, provider }, refused.has(`${egress.id}|${provider}`) ? 0 : 1);
      },
    });
    new Gauge({
      name: 'mailguard_prober_usable_egresses',
      help: 'Egresses left to carry probes to each known provider now (0: its addresses are answered unknown)',
      labelNames: ['provider'],
      registers: [this.registry],
      collect: function () {
        this.reset();
        for (const provider of PROVIDER_IDS) this.set({ provider }, monitor.pool.usable(provider).length);
      },
    });
    new Gauge({
      name: 'mailguard_prober_check',
      help: "The last self-check's checks, 1 per egress and check with its status (pass, warn, fail, skipped)",
      labelNames: ['egress', 'check', 'status'],
      registers: [this.registry],
      collect: function () {
        this.reset();
        for (const egress of monitor.report?.egress ?? [])
          for (const check of egress.checks)
            this.set({ egress: egress.id, check: check.name, status: check.status }, 1);
      },
    });
    new Gauge({
      name: 'mailguard_prober_status',
      help: 'The prober readiness: 0 ok, 1 degraded, 2 blocked (GET /health/ready, prober.status)',
      registers: [this.registry],
      collect: function () {
        this.set({ ok: 0, degraded: 1, blocked: 2 }[monitor.readinessNow().status]);
      },
    });
  }

  /**
   * The live heap, without the garbage not collected yet: what a leak makes grow, where the heap in
   * use (`nodejs_heap_size_used_bytes`) also rises and falls with GC pacing. Before the process's
   * first full GC (a quiet one may not have had any yet), the heap in use now.
   */
  readonly heapAfterGc = new Gauge({
    name: 'mailguard_heap_after_full_gc_bytes',
    help: 'V8 heap in use right after the last full (mark-compact) GC (before the first one: in use now)',
    registers: [this.registry],
    collect: function () {
      this.set(heapAfterFullGc ?? getHeapStatistics().used_heap_size);
    },
  });

  constructor(service: string) {
    this.registry.setDefaultLabels({ service });
    collectDefaultMetrics({ register: this.registry });
    watchFullGcs();
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
