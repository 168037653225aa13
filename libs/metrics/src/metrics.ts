import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The Prometheus metrics of every MailGuard process, declared once. Each process registers the
 * default Node metrics plus the families below; a family that a process never touches stays empty.
 */
export class Metrics {
  readonly registry = new Registry();

  readonly httpRequests = new Counter({ name: 'mailguard_http_requests_total', help: 'HTTP requests by route, method and status', labelNames: ['route', 'method', 'status'], registers: [this.registry] });
  readonly httpDuration = new Histogram({
    name: 'mailguard_http_request_duration_seconds',
    help: 'HTTP request latency by route and status',
    labelNames: ['route', 'method', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15],
    registers: [this.registry],
  });
  readonly credits = new Counter({ name: 'mailguard_credits_total', help: 'Credits charged and refunded', labelNames: ['direction'], registers: [this.registry] });
  readonly cache = new Counter({ name: 'mailguard_result_cache_requests_total', help: 'Result cache look-ups by outcome (hit, miss)', labelNames: ['outcome'], registers: [this.registry] });
  readonly jobs = new Counter({ name: 'mailguard_jobs_total', help: 'Jobs processed by queue, job and outcome', labelNames: ['queue', 'job', 'outcome'], registers: [this.registry] });
  readonly jobDuration = new Histogram({
    name: 'mailguard_job_duration_seconds',
    help: 'Job processing time by queue and job',
    labelNames: ['queue', 'job'],
    buckets: [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });
  readonly smtpOutcomes = new Counter({ name: 'mailguard_smtp_outcomes_total', help: 'SMTP probe outcomes by reply class (or failure) and provider', labelNames: ['class', 'provider'], registers: [this.registry] });
  readonly queueDepth = new Gauge({ name: 'mailguard_queue_depth', help: 'Jobs waiting, delayed and active per queue', labelNames: ['queue', 'state'], registers: [this.registry] });
  readonly slotWaits = new Gauge({ name: 'mailguard_mx_slot_waits', help: 'Times a probe waited for a per-MX session slot (since start)', registers: [this.registry] });

  constructor(service: string) {
    this.registry.setDefaultLabels({ service });
    collectDefaultMetrics({ register: this.registry });
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
