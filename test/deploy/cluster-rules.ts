import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '@mailguard/config';
import { JOB_QUEUES, type JobName, type QueueName } from '@mailguard/queue';
import { nameHash, type K8sObject } from './kustomize';
import { appOf, appSettings, containersOf } from './k8s-validate';
import { alertsOf, dashboardQueries, metricNames } from './promql';

/**
 * What a real cluster needs of the rendered manifests beyond their schemas (issue 34): a Prometheus that finds
 * them, queries of this installation only, datastores the policies let through, drains longer than the jobs,
 * releases a second apply accepts, and a fresh apply that works. Each check returns its problems, one a line.
 */

type Labels = Record<string, string>;

interface Probe {
  periodSeconds?: number;
  failureThreshold?: number;
  initialDelaySeconds?: number;
}

interface PodContainer {
  name: string;
  image: string;
  imagePullPolicy?: string;
  env?: Array<{ name: string }>;
  startupProbe?: Probe;
  lifecycle?: { preStop?: { sleep?: { seconds: number }; exec?: { command: string[] } } };
}

interface PodTemplate {
  metadata: { labels: Labels };
  spec: { terminationGracePeriodSeconds?: number; containers: PodContainer[] };
}

const templateOf = (object: K8sObject) => (object.spec as { template?: PodTemplate } | undefined)?.template;
const workloads = (objects: K8sObject[]) => objects.filter((object) => templateOf(object) !== undefined);
const where = (object: K8sObject) => `${object.kind}/${object.metadata.name}`;
const of = (objects: K8sObject[], kind: string) => objects.filter((object) => object.kind === kind);

/** The kinds a Prometheus Operator discovers by label. */
const DISCOVERED = new Set(['ServiceMonitor', 'PodMonitor', 'PrometheusRule']);

/**
 * Every ServiceMonitor, PodMonitor and PrometheusRule carries `labels` (the selector of the Prometheus that is to
 * pick them up: kube-prometheus-stack selects `release: <its release>` and nothing else by default).
 */
export function discoveryProblems(objects: K8sObject[], labels: Labels): string[] {
  const found = objects.filter((object) => DISCOVERED.has(object.kind));
  if (found.length === 0) return ['no ServiceMonitor, PodMonitor or PrometheusRule'];
  return found.flatMap((object) =>
    Object.entries(labels)
      .filter(([key, value]) => object.metadata.labels?.[key] !== value)
      .map(([key, value]) => `${where(object)}: no label ${key}: ${value}, so no Prometheus selecting it finds it`),
  );
}

/** The label sets of every selector in a PromQL expression (`{a="b",…}`), strings left as they are. */
function selectors(expr: string): Array<Map<string, string>> {
  return [...expr.matchAll(/\{((?:[^}"]|"(?:[^"\\]|\\.)*")*)\}/g)].map(
    (match) => new Map([...match[1].matchAll(/(\w+)\s*(=~|!=|!~|=)\s*"((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[3]])),
  );
}

/**
 * The Prometheus queries read this installation's series only. A KEDA trigger, which needs one number, filters
 * on its namespace in every selector, takes an empty answer for an error (ignoreNullValues: false) and has a
 * `fallback` of at least its minimum; an alert, whose rule every installation sharing the Prometheus loads,
 * aggregates by namespace wherever it aggregates; a dashboard, which one Grafana shows for every installation,
 * has a `namespace` variable and filters on it in every selector.
 */
export function queryScopeProblems(objects: K8sObject[]): string[] {
  const problems: string[] = [];
  for (const scaled of of(objects, 'ScaledObject')) {
    const spec = scaled.spec as {
      minReplicaCount?: number;
      fallback?: { failureThreshold: number; replicas: number };
      triggers: Array<{ type: string; metadata: Record<string, string> }>;
    };
    for (const trigger of spec.triggers.filter((candidate) => candidate.type === 'prometheus')) {
      const namespace = scaled.metadata.namespace;
      const sets = selectors(trigger.metadata.query);
      if (sets.length === 0 || sets.some((set) => !namespace || set.get('namespace') !== namespace))
        problems.push(`${where(scaled)}: query ${trigger.metadata.query} is not limited to namespace="${namespace}"`);
      if (trigger.metadata.ignoreNullValues !== 'false')
        problems.push(`${where(scaled)}: an empty answer (nothing scraped) reads as 0: set ignoreNullValues: 'false'`);
      if (!spec.fallback || spec.fallback.replicas < (spec.minReplicaCount ?? 0))
        problems.push(`${where(scaled)}: no fallback of at least minReplicaCount for when Prometheus fails`);
    }
  }
  for (const { alert, expr } of alertsOf(objects)) {
    for (const match of expr.matchAll(/\b(sum|max|min|count|avg|topk|bottomk|quantile)\s*(by\s*\(([^)]*)\)\s*)?\(/g)) {
      const by = (match[3] ?? '').split(',').map((label) => label.trim());
      if (!by.includes('namespace'))
        problems.push(`PrometheusRule alert ${alert}: ${match[0].trim()} mixes the series of every namespace`);
    }
  }
  for (const map of of(objects, 'ConfigMap').filter((object) => object.metadata.labels?.grafana_dashboard === '1'))
    for (const json of Object.values(map.data as Record<string, string>)) {
      const dashboard = JSON.parse(json) as Parameters<typeof dashboardQueries>[0] & {
        templating?: { list: Array<{ name: string }> };
      };
      if (!dashboard.templating?.list.some((variable) => variable.name === 'namespace'))
        problems.push(`${where(map)}: the dashboard has no namespace variable to choose an installation by`);
      for (const { where: panel, expr } of dashboardQueries(dashboard))
        if (
          selectors(expr).some((set) => set.get('namespace') !== '$namespace') ||
          metricNames(expr).some((metric) => new RegExp(`\\b${metric}\\b(?!\\{)`).test(expr))
        )
          problems.push(`${where(map)}: ${panel} reads every namespace: ${expr}`);
    }
  return problems;
}

function selectsLabels(
  selector: { matchLabels?: Labels; matchExpressions?: Array<{ key: string; operator: string; values?: string[] }> },
  labels: Labels,
): boolean {
  return (
    Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value) &&
    (selector.matchExpressions ?? []).every((expression) => {
      const value = labels[expression.key];
      if (expression.operator === 'In') return expression.values!.includes(value);
      if (expression.operator === 'NotIn') return !expression.values!.includes(value);
      if (expression.operator === 'Exists') return value !== undefined;
      return value === undefined;
    })
  );
}

function ipInCidr(ip: string, cidr: string): boolean {
  const toNumber = (address: string) => address.split('.').reduce((sum, part) => sum * 256 + Number(part), 0);
  const [base, bits] = cidr.split('/');
  const size = 2 ** (32 - Number(bits));
  return Math.floor(toNumber(ip) / size) === Math.floor(toNumber(base) / size);
}

interface NetworkPolicySpec {
  podSelector: { matchLabels?: Labels };
  policyTypes: string[];
  egress?: Array<{
    to?: Array<{
      ipBlock?: { cidr: string; except?: string[] };
      podSelector?: { matchLabels?: Labels };
      namespaceSelector?: { matchLabels?: Labels };
    }>;
    ports?: Array<{ port?: number | string }>;
  }>;
}

/** A datastore as a pod sees it: pods with labels in a namespace, or an address outside the cluster. */
export interface Datastore {
  port: number;
  pod?: { labels: Labels; namespace: string };
  ip?: string;
}

/** Whether the NetworkPolicies let pods with `labels` in `namespace` open a connection to `to`. */
export function egressAllowed(objects: K8sObject[], labels: Labels, namespace: string, to: Datastore): boolean {
  const policies = of(objects, 'NetworkPolicy').filter((policy) => {
    const spec = policy.spec as NetworkPolicySpec;
    return (
      (policy.metadata.namespace ?? namespace) === namespace &&
      spec.policyTypes.includes('Egress') &&
      selectsLabels(spec.podSelector, labels)
    );
  });
  // Not selected by any Egress policy: not isolated, everything goes.
  if (policies.length === 0) return true;
  return policies.some((policy) =>
    ((policy.spec as NetworkPolicySpec).egress ?? []).some((rule) => {
      const port = !rule.ports || rule.ports.some((entry) => entry.port === undefined || entry.port === to.port);
      const peer =
        !rule.to ||
        rule.to.some((peer) => {
          if (peer.ipBlock)
            return (
              to.ip !== undefined &&
              ipInCidr(to.ip, peer.ipBlock.cidr) &&
              !(peer.ipBlock.except ?? []).some((cidr) => ipInCidr(to.ip!, cidr))
            );
          if (!to.pod) return false;
          const namespaceOk = peer.namespaceSelector
            ? selectsLabels(peer.namespaceSelector, { 'kubernetes.io/metadata.name': to.pod.namespace })
            : to.pod.namespace === namespace;
          return namespaceOk && selectsLabels(peer.podSelector ?? {}, to.pod.labels);
        });
      return port && peer;
    }),
  );
}

/** The datastore each variable points a process at. */
const DATASTORE_VARIABLES: Record<string, 'postgres' | 'redis'> = { DATABASE_URL: 'postgres', REDIS_URL: 'redis' };

/**
 * Every pod that reads DATABASE_URL or REDIS_URL may connect to the datastore `where` says (the install style
 * of the overlay), and no NetworkPolicy attaches to pods other than the app's own.
 */
export function datastoreProblems(objects: K8sObject[], where: (kind: 'postgres' | 'redis') => Datastore): string[] {
  const problems: string[] = [];
  for (const workload of workloads(objects)) {
    const template = templateOf(workload)!;
    const namespace = workload.metadata.namespace ?? 'default';
    const variables = new Set(
      template.spec.containers.flatMap((container) => (container.env ?? []).map((entry) => entry.name)),
    );
    for (const [variable, kind] of Object.entries(DATASTORE_VARIABLES)) {
      if (!variables.has(variable)) continue;
      const store = where(kind);
      if (!egressAllowed(objects, template.metadata.labels, namespace, store))
        problems.push(`${workload.kind}/${workload.metadata.name}: cannot reach ${kind} at ${JSON.stringify(store)}`);
    }
  }
  for (const policy of of(objects, 'NetworkPolicy')) {
    const labels = (policy.spec as NetworkPolicySpec).podSelector.matchLabels ?? {};
    if (labels['app.kubernetes.io/part-of'] !== 'mailguard')
      problems.push(`NetworkPolicy/${policy.metadata.name}: selects pods that are not the app's own`);
  }
  return problems;
}

/** `const NAME = 120_000;` read from a source file: the budgets the code gives its jobs, in milliseconds. */
function constantMs(root: string, file: string, name: string): number {
  const match = new RegExp(`const ${name} = ([\\d_]+);`).exec(readFileSync(join(root, file), 'utf8'));
  if (!match) throw new Error(`${file} no longer defines ${name}: say where the job's budget now lives`);
  return Number(match[1].replace(/_/g, ''));
}

/**
 * How long each job may run before it has finished or handed back its work (ms), from the code and from the
 * rendered settings: a worker's grace period must outlast the longest job of its queue.
 */
export function jobBudgets(root: string, objects: K8sObject[]): Record<JobName, number> {
  const deadline = loadConfig(appSettings(objects)).checks.deadlineMs;
  return {
    'dns.inspect': deadline,
    // A single check's probe ends by its deadline; a list row's gets LIST_PROBE_BUDGET_MS.
    'smtp.probe': Math.max(deadline, constantMs(root, 'libs/product/pipeline/src/stages.ts', 'LIST_PROBE_BUDGET_MS')),
    'scoring.conclude': deadline,
    'scoring.concludeGroup': deadline,
    // A feed hands back its rows at each checkpoint: the work between two is one round of inspected groups.
    'list.feed': constantMs(root, 'libs/product/lists/src/handlers.ts', 'INSPECT_BUDGET_MS'),
    'webhook.deliver': constantMs(root, 'libs/product/lists/src/webhook.ts', 'WEBHOOK_TIMEOUT_MS'),
  };
}

const WORKER_OF: Record<QueueName, string> = {
  dns: 'dns-worker',
  smtp: 'smtp-worker',
  scoring: 'scoring-worker',
  lists: 'list-worker',
};

/**
 * Drains: each worker's terminationGracePeriodSeconds is longer than the budget of every job of its queue; the
 * gateway waits in preStop while endpoints stop routing to it, and its grace covers that wait, its own drain delay
 * after SIGTERM (SHUTDOWN_DELAY_MS) and a request in flight (CHECK_DEADLINE_MS).
 */
export function drainProblems(objects: K8sObject[], budgets: Record<JobName, number>): string[] {
  const problems: string[] = [];
  const deployments = of(objects, 'Deployment');
  for (const [job, queue] of Object.entries(JOB_QUEUES) as Array<[JobName, QueueName]>) {
    const worker = deployments.find((deployment) => appOf(containersOf(deployment)[0]) === WORKER_OF[queue]);
    if (!worker) continue;
    const grace = templateOf(worker)!.spec.terminationGracePeriodSeconds ?? 30;
    if (grace * 1000 <= budgets[job])
      problems.push(`${where(worker)}: grace period ${grace} s, but ${job} may run ${budgets[job] / 1000} s`);
  }
  const gateway = deployments.find((deployment) => appOf(containersOf(deployment)[0]) === 'gateway');
  if (gateway) {
    const spec = templateOf(gateway)!.spec;
    const preStop = spec.containers[0].lifecycle?.preStop;
    const sleep =
      preStop?.sleep?.seconds ?? Number(preStop?.exec?.command.find((part) => /^\d+$/.test(part)) ?? Number.NaN);
    const grace = spec.terminationGracePeriodSeconds ?? 30;
    const config = loadConfig(appSettings(objects));
    const request = config.checks.deadlineMs / 1000;
    const delay = config.http.shutdownDelayMs / 1000;
    if (!(sleep > 0)) problems.push(`${where(gateway)}: no preStop delay: endpoints still route to a stopping pod`);
    else if (grace < sleep + delay + request)
      problems.push(
        `${where(gateway)}: grace period ${grace} s < preStop ${sleep} s + SHUTDOWN_DELAY_MS ${delay} s + a request's ${request} s`,
      );
  }
  return problems;
}

/** The seconds a startup probe allows before liveness takes over. */
const startupWindow = (probe: Probe) =>
  (probe.initialDelaySeconds ?? 0) + (probe.periodSeconds ?? 10) * (probe.failureThreshold ?? 3);

/**
 * Releases: the migration Job is named after its image's tag (a new release is a new Job, never a change to an
 * immutable template) and is cleaned up once finished; every process has a startup probe, and those that wait
 * for the migration lock before listening (they read DATABASE_URL) one that lasts as long as the Job may.
 */
export function releaseProblems(objects: K8sObject[]): string[] {
  const problems: string[] = [];
  const jobs = of(objects, 'Job');
  if (jobs.length === 0) problems.push('no migration Job');
  let deadline = 0;
  for (const job of jobs) {
    const spec = job.spec as { ttlSecondsAfterFinished?: number; activeDeadlineSeconds?: number };
    const image = templateOf(job)!.spec.containers[0].image;
    const tag = /:([^:/@]+)$/.exec(image)?.[1];
    if (!tag || !job.metadata.name.endsWith(`-${tag}`))
      problems.push(`${where(job)}: its name does not follow its image ${image}: a new release's apply would fail`);
    if (spec.ttlSecondsAfterFinished === undefined) problems.push(`${where(job)}: finished Jobs are never removed`);
    deadline = Math.max(deadline, spec.activeDeadlineSeconds ?? 0);
  }
  for (const deployment of of(objects, 'Deployment')) {
    for (const container of templateOf(deployment)!.spec.containers) {
      if (!container.startupProbe) {
        problems.push(`${where(deployment)}: ${container.name} has no startup probe`);
        continue;
      }
      const waits = (container.env ?? []).some((entry) => entry.name === 'DATABASE_URL');
      if (waits && startupWindow(container.startupProbe) < deadline)
        problems.push(
          `${where(deployment)}: startup probe gives ${startupWindow(container.startupProbe)} s, a migration may take ${deadline} s`,
        );
    }
  }
  return problems;
}

/** The fewest replicas a Deployment runs: its HPA's or ScaledObject's minimum. */
function minimumReplicas(objects: K8sObject[], deployment: K8sObject): number {
  for (const scaler of [...of(objects, 'HorizontalPodAutoscaler'), ...of(objects, 'ScaledObject')]) {
    const spec = scaler.spec as { scaleTargetRef: { name: string }; minReplicas?: number; minReplicaCount?: number };
    if (spec.scaleTargetRef.name === deployment.metadata.name) return spec.minReplicas ?? spec.minReplicaCount ?? 1;
  }
  return (deployment.spec as { replicas?: number }).replicas ?? 1;
}

/**
 * A fresh apply: a Namespace for every namespaced object; generated ConfigMaps named by their content (a changed
 * setting rolls the pods); PodDisruptionBudgets that allow a drain to evict a pod yet keep one running (none for
 * a single replica); an explicit pull policy on every container, Always for a mutable tag.
 */
export function freshApplyProblems(objects: K8sObject[]): string[] {
  const problems: string[] = [];
  const namespaces = new Set(of(objects, 'Namespace').map((namespace) => namespace.metadata.name));
  const homeless = new Map<string, number>();
  for (const object of objects.filter((candidate) => candidate.kind !== 'Namespace')) {
    const namespace = object.metadata.namespace ?? '(none)';
    if (!namespaces.has(namespace)) homeless.set(namespace, (homeless.get(namespace) ?? 0) + 1);
  }
  for (const [namespace, count] of homeless)
    problems.push(`namespace ${namespace} of ${count} objects is not applied with them: a fresh apply fails`);
  const referenced = new Set(
    workloads(objects).flatMap((workload) =>
      containersOf(workload).flatMap((container) =>
        (container.envFrom ?? []).flatMap((from) => from.configMapRef?.name ?? []),
      ),
    ),
  );
  for (const map of of(objects, 'ConfigMap')) {
    if (!map.metadata.name.endsWith(`-${nameHash(map)}`))
      problems.push(
        `${where(map)}: no content hash in its name${referenced.has(map.metadata.name) ? ': a changed setting never reaches running pods' : ''}`,
      );
  }
  for (const deployment of of(objects, 'Deployment')) {
    const labels = templateOf(deployment)!.metadata.labels;
    const minimum = minimumReplicas(objects, deployment);
    const budgets = of(objects, 'PodDisruptionBudget').filter((budget) =>
      selectsLabels((budget.spec as { selector: { matchLabels?: Labels } }).selector, labels),
    );
    if (minimum >= 2 && budgets.length === 0)
      problems.push(`${where(deployment)}: ${minimum} replicas and no PodDisruptionBudget`);
    for (const budget of budgets) {
      const spec = budget.spec as { minAvailable?: number; maxUnavailable?: number };
      const evictable = spec.minAvailable !== undefined ? minimum - spec.minAvailable : (spec.maxUnavailable ?? 0);
      if (evictable < 1 || evictable > minimum - 1)
        problems.push(
          `${where(budget)}: at ${minimum} replica(s) it lets a drain evict ${evictable}: ` +
            (evictable < 1 ? 'node drains block' : 'the kind can go to zero'),
        );
    }
  }
  for (const workload of workloads(objects)) {
    for (const container of templateOf(workload)!.spec.containers) {
      const mutable =
        !/@sha256:[0-9a-f]{64}$/.test(container.image) && !/:v?\d+\.\d+\.\d+([-+.][\w.]+)?$/.test(container.image);
      if (!container.imagePullPolicy) problems.push(`${where(workload)}: ${container.name} has no imagePullPolicy`);
      else if (mutable && container.imagePullPolicy !== 'Always')
        problems.push(
          `${where(workload)}: ${container.name} runs the mutable ${container.image} with ${container.imagePullPolicy}`,
        );
    }
  }
  return problems;
}
