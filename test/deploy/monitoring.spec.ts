import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UNKNOWN_CAUSES } from '@mailguard/verdict';
import { headingAnchors } from '../support/markdown';
import { overlays, renderOverlay } from './k8s-validate';
import { alertsOf, dashboardQueries, metricNames, readDashboard } from './promql';

/** The dashboard and the alerts, offline: shipped where Grafana finds them, and each alert explained in the runbook. */
const root = resolve(__dirname, '../..');
const dashboard = readDashboard(root);

describe.each(overlays(root))('overlay %s', (overlay) => {
  const objects = renderOverlay(root, overlay);

  it('ships the Grafana dashboard as a ConfigMap the Grafana sidecar picks up', () => {
    const maps = objects.filter(
      (object) => object.kind === 'ConfigMap' && object.metadata.labels?.grafana_dashboard === '1',
    );
    expect(maps.map((map) => Object.keys(map.data as object))).toEqual([['mailguard.json']]);
    expect(JSON.parse((maps[0].data as Record<string, string>)['mailguard.json'])).toEqual(dashboard);
  });

  it("points each alert's runbook_url at a heading of docs/operations.md", () => {
    const headings = headingAnchors(readFileSync(join(root, 'docs', 'operations.md'), 'utf8'));
    const alerts = alertsOf(objects);
    expect(alerts.length).toBeGreaterThan(5);
    for (const { alert, annotations } of alerts) {
      const [path, fragment] = (annotations.runbook_url ?? '').split('#');
      expect([alert, path, headings.has(fragment)]).toEqual([alert, 'docs/operations.md', true]);
    }
  });

  it('counts as unknown exactly the subStatus values of the `unknown` verdict', () => {
    const rule = alertsOf(objects).find((candidate) => candidate.alert === 'MailguardUnknownShareHigh')!;
    const [, causes] = /sub_status=~"([^"]+)"/.exec(rule.expr)!;
    expect(causes.split('|').sort()).toEqual([...UNKNOWN_CAUSES].sort());
  });
});

describe('the dashboard', () => {
  it('has a query in every panel, unique panel ids, and covers what operators watch', () => {
    const queries = dashboardQueries(dashboard);
    const panels = (dashboard.panels as Array<{ id: number; type: string; targets?: unknown[] }>).filter(
      (panel) => panel.type !== 'row',
    );
    expect(panels.every((panel) => (panel.targets ?? []).length > 0)).toBe(true);
    expect(new Set((dashboard.panels as Array<{ id: number }>).map((panel) => panel.id)).size).toBe(
      dashboard.panels.length,
    );
    const named = new Set(queries.flatMap(({ expr }) => metricNames(expr)));
    for (const metric of [
      'mailguard_http_requests_total',
      'mailguard_http_request_duration_seconds_bucket',
      'mailguard_checks_total',
      'mailguard_queue_depth',
      'mailguard_smtp_outcomes_total',
      'mailguard_mx_slots_held',
      'mailguard_credits_total',
      'mailguard_mx_cool_downs',
      'mailguard_mx_slot_wait_seconds_bucket',
      'mailguard_prober_egress_status',
      'mailguard_prober_usable_egresses',
      'mailguard_prober_status',
    ]) {
      expect([metric, named.has(metric)]).toEqual([metric, true]);
    }
  });
});

describe('metricNames', () => {
  it('finds the metrics of a query, not its functions, labels, strings, ranges or keywords', () => {
    expect(
      metricNames('histogram_quantile(0.9, sum by (le) (rate(a_seconds_bucket{x=~"b|c"}[$__rate_interval])))'),
    ).toEqual(['a_seconds_bucket']);
    expect(
      metricNames('max by (queue) (depth{state="wait"}) > 100\nand deriv(max(depth)[10m:1m]) > 0 or on (job) up'),
    ).toEqual(['depth', 'up']);
    expect(metricNames('count(max by (host) (cool)) / ignoring(x) group_left(y) other offset 5m')).toEqual([
      'cool',
      'other',
    ]);
  });
});
