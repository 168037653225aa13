import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  datastoreProblems,
  discoveryProblems,
  drainProblems,
  freshApplyProblems,
  jobBudgets,
  queryScopeProblems,
  releaseProblems,
  type Datastore,
} from './cluster-rules';
import { overlays, renderOverlay } from './k8s-validate';
import type { K8sObject } from './kustomize';

/**
 * What breaks first on a real cluster (issue 34), checked on each overlay as rendered. The job budgets come from
 * this checkout's code; MAILGUARD_DEPLOY_ROOT points the manifests and the Dockerfile at another checkout (main's,
 * to see what these tests catch there).
 */
const root = resolve(__dirname, '../..');
const deployRoot = process.env.MAILGUARD_DEPLOY_ROOT ?? root;

/** Where each overlay's datastores are, as its kustomization says (and docs/operations.md, "Postgres and Redis"). */
const DATASTORES: Record<string, Array<(kind: 'postgres' | 'redis') => Datastore>> = {
  // The Bitnami charts, in the namespace or in another one.
  dev: [
    (kind) => ({
      port: kind === 'postgres' ? 5432 : 6379,
      pod: {
        labels: { 'app.kubernetes.io/name': kind === 'postgres' ? 'postgresql' : 'redis' },
        namespace: 'mailguard-dev',
      },
    }),
    (kind) => ({
      port: kind === 'postgres' ? 5432 : 6379,
      pod: {
        labels: { 'app.kubernetes.io/name': kind === 'postgres' ? 'postgresql' : 'redis' },
        namespace: 'databases',
      },
    }),
  ],
  // Managed services at private addresses of the example CIDRs in prod/datastores.yaml.
  prod: [(kind) => (kind === 'postgres' ? { port: 5432, ip: '10.20.0.10' } : { port: 6379, ip: '10.20.1.10' })],
};

describe.each(overlays(deployRoot))('overlay %s on a real cluster', (overlay) => {
  const objects = renderOverlay(deployRoot, overlay);

  it("is found by kube-prometheus-stack's Prometheus: monitors and rules carry release: kube-prometheus-stack", () => {
    expect(discoveryProblems(objects, { release: 'kube-prometheus-stack' })).toEqual([]);
  });

  it('queries Prometheus for its own namespace only, with a KEDA fallback when the answer is missing', () => {
    expect(queryScopeProblems(objects)).toEqual([]);
  });

  it('lets every process reach Postgres and Redis where the overlay installs them, with policies on its own pods only', () => {
    const styles = DATASTORES[overlay] ?? [];
    expect(styles.length).toBeGreaterThan(0);
    for (const where of styles) expect(datastoreProblems(objects, where)).toEqual([]);
  });

  it('gives every worker a grace period longer than its jobs, and the gateway a preStop delay within its own', () => {
    expect(drainProblems(objects, jobBudgets(root, objects))).toEqual([]);
  });

  it('names the migration Job per release, and lets every process start through a long migration', () => {
    expect(releaseProblems(objects)).toEqual([]);
  });

  it('applies fresh: Namespace, hashed ConfigMaps, budgets that fit the replicas, explicit pull policies', () => {
    expect(freshApplyProblems(objects)).toEqual([]);
  });
});

/** The end of life of each Node LTS line (nodejs.org's release schedule). */
const NODE_END_OF_LIFE: Record<number, string> = {
  20: '2026-04-30',
  22: '2027-04-30',
  24: '2028-04-30',
  26: '2029-04-30',
};

describe('the image', () => {
  const dockerfile = readFileSync(join(deployRoot, 'docker', 'Dockerfile'), 'utf8');
  const stages = dockerfile
    .split(/^FROM /m)
    .slice(1)
    .map((body) => body.split('\n')[0].split(/\s+/)[0]);

  it('runs a supported Node LTS that package.json admits, pinned by digest in every stage', () => {
    for (const image of stages) expect(image).toMatch(/^node:\d+\.\d+\.\d+-[\w.-]+@sha256:[0-9a-f]{64}$/);
    const major = Number(/^node:(\d+)\./.exec(stages.at(-1)!)?.[1]);
    expect(NODE_END_OF_LIFE[major] ?? 'not an LTS line').toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(new Date(NODE_END_OF_LIFE[major]).getTime()).toBeGreaterThan(Date.now());
    const engines = (
      JSON.parse(readFileSync(join(deployRoot, 'package.json'), 'utf8')) as { engines: { node: string } }
    ).engines.node;
    expect(Number(/^>=\s*(\d+)/.exec(engines)?.[1])).toBeLessThanOrEqual(major);
  });

  it('has no package manager at run time', () => {
    const final = dockerfile.split(/^FROM /m).at(-1)!;
    const removed = [...final.matchAll(/^RUN rm -rf ((?:.|\\\n)*)$/gm)].flatMap((match) =>
      match[1].replace(/\\\n/g, ' ').split(/\s+/),
    );
    const gone = (path: string) => removed.some((entry) => path === entry || path.startsWith(`${entry}/`));
    for (const path of ['/usr/local/lib/node_modules/npm', '/usr/local/bin/npm', '/usr/local/bin/npx'])
      expect([path, gone(path)]).toEqual([path, true]);
  });
});

describe('the rules, each on one defect of the prod render', () => {
  const pristine = renderOverlay(root, 'prod');
  const broken = (change: (objects: K8sObject[]) => void) => {
    const objects = structuredClone(pristine);
    change(objects);
    return objects;
  };
  const find = (objects: K8sObject[], kind: string, name: string) =>
    objects.find((object) => object.kind === kind && object.metadata.name === name)!;
  const podSpec = (object: K8sObject) =>
    (object.spec as { template: { spec: Record<string, unknown> & { containers: Array<Record<string, unknown>> } } })
      .template.spec;

  it('sees a datastore peer by pod labels alone as reaching the own namespace only, and a policy on foreign pods', () => {
    const objects = broken((all) => {
      const policy = find(all, 'NetworkPolicy', 'mailguard-datastores-egress');
      (policy.spec as { egress: unknown }).egress = [
        { to: [{ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'postgresql' } } }], ports: [{ port: 5432 }] },
      ];
      (find(all, 'NetworkPolicy', 'mailguard-smtp-egress').spec as { podSelector: unknown }).podSelector = {
        matchLabels: { 'app.kubernetes.io/name': 'smtp-worker' },
      };
    });
    const bitnami = (namespace: string) => (): Datastore => ({
      port: 5432,
      pod: { labels: { 'app.kubernetes.io/name': 'postgresql' }, namespace },
    });
    expect(datastoreProblems(objects, bitnami('mailguard'))).toEqual([
      "NetworkPolicy/mailguard-smtp-egress: selects pods that are not the app's own",
    ]);
    expect(datastoreProblems(objects, bitnami('databases'))).toEqual(
      expect.arrayContaining([expect.stringMatching(/^Job\/mailguard-migrate-0\.1\.0: cannot reach postgres/)]),
    );
  });

  it('fails a grace period that a job budget from the code outlasts, and a gateway without preStop', () => {
    const objects = broken((all) => {
      podSpec(find(all, 'Deployment', 'mailguard-smtp-worker')).terminationGracePeriodSeconds = 120;
      delete podSpec(find(all, 'Deployment', 'mailguard-gateway')).containers[0].lifecycle;
    });
    expect(drainProblems(objects, jobBudgets(root, objects))).toEqual([
      'Deployment/mailguard-smtp-worker: grace period 120 s, but smtp.probe may run 120 s',
      'Deployment/mailguard-gateway: no preStop delay: endpoints still route to a stopping pod',
    ]);
  });

  it('fails a migration Job named once for every release, and a startup probe shorter than a migration', () => {
    const objects = broken((all) => {
      find(all, 'Job', 'mailguard-migrate-0.1.0').metadata.name = 'mailguard-migrate';
      podSpec(find(all, 'Deployment', 'mailguard-gateway')).containers[0].startupProbe = {
        httpGet: { path: '/health/live', port: 'http' },
        periodSeconds: 2,
        failureThreshold: 30,
      };
    });
    expect(releaseProblems(objects)).toEqual([
      expect.stringMatching(/^Job\/mailguard-migrate: its name does not follow its image/),
      'Deployment/mailguard-gateway: startup probe gives 60 s, a migration may take 900 s',
    ]);
  });

  it('fails a ConfigMap edited after hashing, a budget that lets a kind go to zero, and a mutable tag not pulled', () => {
    const objects = broken((all) => {
      const map = all.find(
        (object) => object.kind === 'ConfigMap' && object.metadata.name.startsWith('mailguard-config-'),
      )!;
      (map.data as Record<string, string>).LOG_LEVEL = 'debug';
      (find(all, 'ScaledObject', 'mailguard-dns-worker').spec as { minReplicaCount: number }).minReplicaCount = 1;
      podSpec(find(all, 'Deployment', 'mailguard-list-worker')).containers[0].image =
        'registry.example.com/mailguard:latest';
    });
    expect(freshApplyProblems(objects)).toEqual([
      expect.stringMatching(/^ConfigMap\/mailguard-config-\w+: no content hash in its name: a changed setting/),
      'PodDisruptionBudget/mailguard-dns-worker: at 1 replica(s) it lets a drain evict 0: node drains block',
      'Deployment/mailguard-list-worker: list-worker runs the mutable registry.example.com/mailguard:latest with IfNotPresent',
    ]);
  });

  it('fails a monitor without the discovery label, an unscoped KEDA query, an alert summing every namespace and a dashboard panel reading them all', () => {
    const objects = broken((all) => {
      delete find(all, 'ServiceMonitor', 'mailguard-workers').metadata.labels!.release;
      const scaled = find(all, 'ScaledObject', 'mailguard-smtp-worker').spec as {
        triggers: Array<{ metadata: Record<string, string> }>;
      };
      scaled.triggers[1].metadata.query = 'max(mailguard_queue_depth{queue="smtp",state="delayed"})';
      const rule = find(all, 'PrometheusRule', 'mailguard').spec as {
        groups: Array<{ rules: Array<{ expr: string }> }>;
      };
      rule.groups[0].rules[0].expr = 'sum(mailguard_queue_depth) > 100';
      const map = all.find(
        (object) => object.kind === 'ConfigMap' && object.metadata.labels?.grafana_dashboard === '1',
      )!;
      const data = map.data as Record<string, string>;
      const dashboard = JSON.parse(data['mailguard.json']) as { panels: Array<{ targets?: Array<{ expr: string }> }> };
      dashboard.panels.find((panel) => panel.targets)!.targets![0].expr =
        'sum(rate(mailguard_http_requests_total[5m]))';
      data['mailguard.json'] = JSON.stringify(dashboard);
    });
    expect(discoveryProblems(objects, { release: 'kube-prometheus-stack' })).toEqual([
      'ServiceMonitor/mailguard-workers: no label release: kube-prometheus-stack, so no Prometheus selecting it finds it',
    ]);
    expect(queryScopeProblems(objects)).toEqual([
      expect.stringContaining('ScaledObject/mailguard-smtp-worker: query max(mailguard_queue_depth{queue="smtp"'),
      'PrometheusRule alert MailguardQueueBacklogGrowing: sum( mixes the series of every namespace',
      expect.stringMatching(
        /^ConfigMap\/mailguard-grafana-dashboard-\w+: panel ".*" reads every namespace: sum\(rate\(mailguard_http/,
      ),
    ]);
  });
});
