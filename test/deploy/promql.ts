import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { K8sObject } from './kustomize';

/** The queries operators run: every target of the Grafana dashboard, every alert of the PrometheusRule. */

export interface Alert {
  alert: string;
  expr: string;
  annotations: Record<string, string>;
}

interface Panel {
  title?: string;
  targets?: Array<{ expr: string }>;
  panels?: Panel[];
}

export const dashboardFile = (root: string) => join(root, 'k8s', 'base', 'grafana', 'mailguard.json');

export function dashboardQueries(dashboard: { panels: Panel[] }): Array<{ where: string; expr: string }> {
  const walk = (panels: Panel[]): Array<{ where: string; expr: string }> =>
    panels.flatMap((panel) => [
      ...(panel.targets ?? []).map(({ expr }) => ({ where: `panel "${panel.title}"`, expr })),
      ...walk(panel.panels ?? []),
    ]);
  return walk(dashboard.panels);
}

export const readDashboard = (root: string) =>
  JSON.parse(readFileSync(dashboardFile(root), 'utf8')) as { panels: Panel[] };

export function alertsOf(objects: K8sObject[]): Alert[] {
  return objects
    .filter((object) => object.kind === 'PrometheusRule')
    .flatMap((rule) => (rule.spec as { groups: Array<{ rules: Alert[] }> }).groups.flatMap((group) => group.rules));
}

const KEYWORDS = new Set([
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
]);

/**
 * The metric names a PromQL expression selects. Label matchers, strings, ranges and the label lists of
 * by/without/on/ignoring/group_* are cut out first; of what is left, a name followed by `(` is a function or
 * an aggregation, and the rest are metrics.
 */
export function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = new Set<string>();
  for (const match of bare.matchAll(/(?<![\w:$.])([a-zA-Z_:][\w:]*)(\s*\()?/g)) {
    if (!match[2] && !KEYWORDS.has(match[1])) names.add(match[1]);
  }
  return [...names];
}

/**
 * The series names a Prometheus exposition offers, from its `# TYPE` lines: prom-client writes one for every
 * registered family, samples or not. A histogram is queried through its _bucket, _sum and _count series.
 */
export function exportedNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${name}${suffix}`);
    else if (type === 'summary') for (const suffix of ['', '_sum', '_count']) names.add(`${name}${suffix}`);
    else names.add(name);
  }
  return names;
}

/** Series the rules read from outside MailGuard: kube-state-metrics, which the Prometheus Operator stack runs. */
export const EXTERNAL_METRICS = new Set(['kube_pod_status_ready']);
