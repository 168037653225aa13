import { join, resolve } from 'node:path';
import { readYaml, type K8sObject } from './kustomize';
import { appOf, consistencyProblems, containersOf, overlays, renderOverlay, schemaProblems } from './k8s-validate';

/** The overlays rendered offline, each object validated against the Kubernetes, KEDA and Prometheus Operator schemas. */
const root = resolve(__dirname, '../..');
const [secretExample] = readYaml(join(root, 'k8s', 'base', 'secret.example.yaml')) as Array<{
  stringData: Record<string, string>;
}>;

describe.each(overlays(root))('overlay %s', (overlay) => {
  const objects = renderOverlay(root, overlay);

  it('renders every object against its schema, with no field the schema does not define', () => {
    expect(objects.length).toBeGreaterThan(20);
    expect(schemaProblems(objects)).toEqual([]);
  });

  it('sets only variables the config schema reads, every required one, with ports, probes and images that agree', () => {
    expect(consistencyProblems(objects, secretExample.stringData)).toEqual([]);
  });

  it('runs a Deployment per process kind, each scaled: the gateway on CPU, each worker on its queue', () => {
    const deployments = objects.filter((object) => object.kind === 'Deployment');
    expect(deployments.map((deployment) => appOf(containersOf(deployment)[0])).sort()).toEqual([
      'dns-worker',
      'gateway',
      'list-worker',
      'scoring-worker',
      'smtp-worker',
    ]);
    const scaled = (kind: string) =>
      objects
        .filter((object) => object.kind === kind)
        .map((object) => (object.spec as { scaleTargetRef: { name: string } }).scaleTargetRef.name);
    expect(scaled('HorizontalPodAutoscaler')).toEqual(['mailguard-gateway']);
    expect(scaled('ScaledObject').sort()).toEqual(
      deployments
        .map((d) => d.metadata.name)
        .filter((name) => name !== 'mailguard-gateway')
        .sort(),
    );
  });

  it('runs every pod non-root, read-only, without privilege escalation or capabilities', () => {
    for (const object of objects.filter((candidate) => containersOf(candidate).length > 0)) {
      const pod = (object.spec as { template: { spec: { securityContext: Record<string, unknown> } } }).template.spec;
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true });
      for (const container of containersOf(object)) {
        expect((container as unknown as { securityContext: unknown }).securityContext).toEqual({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ['ALL'] },
        });
      }
    }
  });

  it("scrapes every process's metrics port, never the gateway's API port, and lets only Prometheus reach it", () => {
    type Labels = Record<string, string>;
    const labelsOf = (object: K8sObject) =>
      (object.spec as { template: { metadata: { labels: Labels } } }).template.metadata.labels;
    const selects = (selector: Labels, labels: Labels) =>
      Object.entries(selector).every(([key, value]) => labels[key] === value);
    const services = objects.filter((object) => object.kind === 'Service');
    const monitors = objects.filter((object) => object.kind === 'ServiceMonitor');
    const policies = objects.filter((object) => object.kind === 'NetworkPolicy');
    for (const deployment of objects.filter((object) => object.kind === 'Deployment')) {
      const labels = labelsOf(deployment);
      const app = labels['app.kubernetes.io/name'];
      const named = containersOf(deployment).flatMap((container) => (container.ports ?? []).map((port) => port.name));
      expect([app, named.includes('metrics')]).toEqual([app, true]);
      // Scraped: a ServiceMonitor endpoint on a Service of these pods, by the port's name, at /metrics.
      const scraped = monitors.flatMap((monitor) => {
        const spec = monitor.spec as {
          selector: { matchLabels: Labels };
          endpoints: Array<{ port: string; path: string }>;
        };
        const ports = services
          .filter((service) => selects(spec.selector.matchLabels, service.metadata.labels as Labels))
          .filter((service) => selects((service.spec as { selector: Labels }).selector, labels))
          .flatMap((service) => (service.spec as { ports: Array<{ name: string; targetPort: string }> }).ports);
        return spec.endpoints
          .filter((endpoint) => ports.some((port) => port.name === endpoint.port))
          .map((endpoint) => `${ports.find((port) => port.name === endpoint.port)?.targetPort} ${endpoint.path}`);
      });
      expect([app, scraped]).toEqual([app, ['metrics /metrics']]);
      // Reached: from the monitoring namespace on that port, and from nowhere else.
      const rules = policies
        .filter((policy) =>
          selects((policy.spec as { podSelector: { matchLabels?: Labels } }).podSelector.matchLabels ?? {}, labels),
        )
        .flatMap(
          (policy) =>
            (
              policy.spec as {
                ingress?: Array<{
                  from: Array<{ namespaceSelector?: { matchLabels: Labels } }>;
                  ports: Array<{ port: string }>;
                }>;
              }
            ).ingress ?? [],
        );
      const toMetrics = rules.filter((rule) => rule.ports.some((port) => port.port === 'metrics'));
      expect([app, toMetrics.flatMap((rule) => rule.from.map((peer) => peer.namespaceSelector?.matchLabels))]).toEqual([
        app,
        [{ 'kubernetes.io/metadata.name': 'monitoring' }],
      ]);
    }
  });

  it('lets only the smtp-workers open TCP/25', () => {
    const policies = objects.filter((object) => object.kind === 'NetworkPolicy');
    for (const deployment of objects.filter((object) => object.kind === 'Deployment')) {
      const labels = (deployment.spec as { template: { metadata: { labels: Record<string, string> } } }).template
        .metadata.labels;
      const opens25 = policies.some((policy) => {
        const spec = policy.spec as {
          podSelector: {
            matchLabels?: Record<string, string>;
            matchExpressions?: Array<{ key: string; values: string[] }>;
          };
          egress?: Array<{ ports?: Array<{ port: number | string }> }>;
        };
        const selects =
          Object.entries(spec.podSelector.matchLabels ?? {}).every(([key, value]) => labels[key] === value) &&
          (spec.podSelector.matchExpressions ?? []).every((expression) =>
            expression.values.includes(labels[expression.key]),
          );
        // A rule without ports allows every port.
        return (
          selects && (spec.egress ?? []).some((rule) => !rule.ports || rule.ports.some((port) => port.port === 25))
        );
      });
      expect([labels['app.kubernetes.io/name'], opens25]).toEqual([
        labels['app.kubernetes.io/name'],
        labels['app.kubernetes.io/name'] === 'smtp-worker',
      ]);
    }
  });
});

describe('the validation', () => {
  const pristine = renderOverlay(root, 'prod');
  const broken = (change: (objects: K8sObject[]) => void) => {
    const objects = structuredClone(pristine);
    change(objects);
    return [...schemaProblems(objects), ...consistencyProblems(objects, secretExample.stringData)];
  };
  const deployment = (objects: K8sObject[], name: string) =>
    objects.find((object) => object.kind === 'Deployment' && object.metadata.name === name)!;

  it('passes the manifests as they are', () => {
    expect(broken(() => undefined)).toEqual([]);
  });

  it('fails a wrong port', () => {
    const problems = broken((objects) => {
      containersOf(deployment(objects, 'mailguard-smtp-worker'))[0].ports![0].containerPort = 3101;
    });
    expect(problems).toEqual([
      expect.stringContaining('Deployment/mailguard-smtp-worker: container ports [3101], the process listens on 3102'),
    ]);
  });

  it('fails an unknown field, in a built-in kind and in a KEDA one', () => {
    const problems = broken((objects) => {
      Object.assign(containersOf(deployment(objects, 'mailguard-gateway'))[0], { livenesProbe: {} });
      Object.assign(objects.find((object) => object.kind === 'ScaledObject')!.spec as object, { maxReplicas: 3 });
    });
    expect(problems).toEqual([
      expect.stringMatching(/Deployment\/mailguard-gateway: unknown field .*\/containers\/0\/livenesProbe$/),
      expect.stringMatching(/ScaledObject\/.*: unknown field \/spec\/maxReplicas$/),
    ]);
  });

  it('fails a wrong type where the schema says otherwise', () => {
    const problems = broken((objects) => {
      (deployment(objects, 'mailguard-gateway').spec as { revisionHistoryLimit: unknown }).revisionHistoryLimit =
        'five';
    });
    expect(problems).toEqual([expect.stringContaining('Deployment/mailguard-gateway')]);
  });

  it('fails a missing required variable, and one no process reads', () => {
    const problems = broken((objects) => {
      const gateway = containersOf(deployment(objects, 'mailguard-gateway'))[0];
      gateway.env = gateway.env!.filter((entry) => entry.name !== 'DATABASE_URL');
      gateway.env.push({ name: 'DATABSE_URL', value: 'postgres://x@y/z' });
    });
    expect(problems.sort()).toEqual([
      'Deployment/mailguard-gateway: DATABASE_URL is required and not set',
      'Deployment/mailguard-gateway: sets DATABSE_URL, which no process reads',
    ]);
  });

  it('fails a KEDA trigger on a list BullMQ does not keep', () => {
    const problems = broken((objects) => {
      const scaled = objects.find(
        (object) => object.kind === 'ScaledObject' && object.metadata.name === 'mailguard-dns-worker',
      )!;
      (scaled.spec as { triggers: Array<{ metadata: Record<string, string> }> }).triggers[0].metadata.listName =
        'bull:dns:wait';
    });
    expect(problems).toEqual([
      expect.stringContaining(
        'ScaledObject/mailguard-dns-worker: redis trigger reads bull:dns:wait, BullMQ keeps mailguard:bull:dns:wait',
      ),
    ]);
  });
});
