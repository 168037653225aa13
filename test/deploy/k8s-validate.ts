import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig, WORKER_PORT_VARIABLES, type AppConfig, type WorkerName } from '@mailguard/config';
import { QUEUE_NAMES } from '@mailguard/queue';
import { render, type K8sObject } from './kustomize';

export const overlays = (root: string) => readdirSync(join(root, 'k8s', 'overlays')).sort();
export const renderOverlay = (root: string, overlay: string): K8sObject[] =>
  render(join(root, 'k8s', 'overlays', overlay));

/**
 * Each object validated against its kind's schema (Kubernetes OpenAPI, KEDA and Prometheus Operator CRDs, from
 * kubernetes-models), fields the schema does not define included. Run in a child process: those packages ship
 * ES modules only, which Jest's CommonJS sandbox cannot load.
 */
export function schemaProblems(objects: K8sObject[]): string[] {
  const output = execFileSync(process.execPath, [join(__dirname, 'schema-check.mjs')], {
    input: JSON.stringify(objects),
    encoding: 'utf8',
  });
  return JSON.parse(output) as string[];
}

/** A ConfigMap's or Secret's values as the pods see them (a Secret's `data` decoded). */
export function dataOf(object: K8sObject): Record<string, string> {
  const data = (object.data ?? {}) as Record<string, string>;
  const decoded =
    object.kind === 'Secret'
      ? Object.fromEntries(Object.entries(data).map(([key, value]) => [key, Buffer.from(value, 'base64').toString()]))
      : data;
  return { ...decoded, ...(object.stringData as Record<string, string> | undefined) };
}

/** The settings every process reads: the ConfigMap the gateway's envFrom names (its name carries a content hash). */
export function appSettings(objects: K8sObject[]): Record<string, string> {
  const gateway = objects.find(
    (object) => object.kind === 'Deployment' && object.metadata.name === 'mailguard-gateway',
  );
  const name = gateway && containersOf(gateway)[0].envFrom?.find((from) => from.configMapRef)?.configMapRef?.name;
  const map = objects.find((object) => object.kind === 'ConfigMap' && object.metadata.name === name);
  if (!map) throw new Error(`the gateway's ConfigMap ${name} is not rendered`);
  return dataOf(map);
}

/** Every variable loadConfig reads, found by watching it read an empty environment. */
export function configVariables(): string[] {
  const names = new Set<string>();
  loadConfig(new Proxy({}, { get: (_target, key) => (typeof key === 'string' && names.add(key), undefined) }));
  return [...names];
}

interface Container {
  name: string;
  image: string;
  command: string[];
  ports?: Array<{ name: string; containerPort: number }>;
  envFrom?: Array<{ configMapRef?: { name: string }; secretRef?: { name: string } }>;
  env?: Array<{
    name: string;
    value?: string;
    valueFrom?: {
      secretKeyRef?: { name: string; key: string; optional?: boolean };
      configMapKeyRef?: { name: string; key: string };
    };
  }>;
  readinessProbe?: { httpGet: { path: string; port: string | number } };
  livenessProbe?: { httpGet: { path: string; port: string | number } };
  startupProbe?: { httpGet: { path: string; port: string | number } };
}

export const containersOf = (object: K8sObject): Container[] =>
  (object.spec as { template?: { spec?: { containers?: Container[] } } } | undefined)?.template?.spec?.containers ?? [];

/** The app a container runs: dist/apps/<app>/src/main.js. */
export const appOf = (container: Container) => /^dist\/apps\/([a-z-]+)\//.exec(container.command[1] ?? '')?.[1] ?? '';

/** The ports a process listens on, in the order its container lists them: the gateway its API's, then its metrics'. */
export function listeningPorts(app: string, config: AppConfig): number[] {
  if (app === 'gateway') return [config.http.port, config.metrics.port];
  return app in WORKER_PORT_VARIABLES ? [config.workers.ports[app as WorkerName]] : [];
}

/** Variables that a cluster must set: without them a process falls back to what only suits one machine. */
const REQUIRED: Record<string, string[]> = {
  gateway: ['DATABASE_URL', 'REDIS_URL', 'SMTP_HELO_NAME'],
  'dns-worker': ['REDIS_URL'],
  'smtp-worker': ['REDIS_URL', 'SMTP_HELO_NAME'],
  'scoring-worker': ['REDIS_URL', 'DATABASE_URL'],
  'list-worker': ['REDIS_URL', 'DATABASE_URL'],
  migrate: ['DATABASE_URL'],
};

/**
 * The environment each container gets (ConfigMap and Secret values resolved; a Secret absent from the render
 * is read from `secretExample`), checked against the config schema: known variables only, the required ones
 * set, loadConfig accepting them, and ports, probes and images that agree with what each process listens on.
 */
export function consistencyProblems(objects: K8sObject[], secretExample: Record<string, string>): string[] {
  const problems: string[] = [];
  const known = new Set(configVariables());
  known.delete('WORKER_PORT');
  const source = (kind: string, name: string): Record<string, string> | undefined => {
    const found = objects.find((object) => object.kind === kind && object.metadata.name === name);
    if (found) return dataOf(found);
    return kind === 'Secret' && name === 'mailguard-secrets' ? secretExample : undefined;
  };
  const images = new Set<string>();
  for (const object of objects) {
    for (const container of containersOf(object)) {
      const where = `${object.kind}/${object.metadata.name}`;
      images.add(container.image);
      const env: Record<string, string> = {};
      for (const from of container.envFrom ?? []) {
        const ref = from.configMapRef ?? from.secretRef;
        const values = ref && source(from.configMapRef ? 'ConfigMap' : 'Secret', ref.name);
        if (!values) problems.push(`${where}: envFrom names ${ref?.name}, which is not rendered`);
        Object.assign(env, values);
      }
      for (const entry of container.env ?? []) {
        const ref = entry.valueFrom?.secretKeyRef ?? entry.valueFrom?.configMapKeyRef;
        if (!ref) {
          env[entry.name] = entry.value ?? '';
          continue;
        }
        const value = source(entry.valueFrom?.secretKeyRef ? 'Secret' : 'ConfigMap', ref.name)?.[ref.key];
        if (value === undefined && !entry.valueFrom?.secretKeyRef?.optional)
          problems.push(`${where}: ${entry.name} refers to ${ref.name}/${ref.key}, which does not exist`);
        if (value !== undefined) env[entry.name] = value;
      }
      for (const name of Object.keys(env))
        if (!known.has(name)) problems.push(`${where}: sets ${name}, which no process reads`);
      const app = appOf(container);
      for (const name of REQUIRED[app] ?? [`(no required list for app ${JSON.stringify(app)})`]) {
        if (!env[name]?.trim()) problems.push(`${where}: ${name} is required and not set`);
      }
      let config;
      try {
        config = loadConfig(env);
      } catch (error) {
        problems.push(`${where}: ${(error as Error).message}`);
        continue;
      }
      const listens = listeningPorts(app, config);
      const ports = container.ports ?? [];
      if (JSON.stringify(ports.map((entry) => entry.containerPort)) !== JSON.stringify(listens)) {
        problems.push(
          `${where}: container ports ${JSON.stringify(ports.map((entry) => entry.containerPort))}, the process listens on ${listens.join(', ') || 'none'}`,
        );
      }
      for (const [probe, path] of [
        ['readinessProbe', '/health/ready'],
        ['livenessProbe', '/health/live'],
        ['startupProbe', '/health/live'],
      ] as const) {
        const get = container[probe]?.httpGet;
        if (!get) continue;
        if (get.path !== path) problems.push(`${where}: ${probe} on ${get.path}, expected ${path}`);
        if (!ports.some((entry) => entry.name === get.port || entry.containerPort === get.port))
          problems.push(`${where}: ${probe} port ${get.port} is not a container port`);
      }
      if (listens.length > 0 && !container.livenessProbe) problems.push(`${where}: no liveness probe`);
      if (app === 'gateway' && !container.readinessProbe) problems.push(`${where}: no readiness probe`);
    }
  }
  if (images.size !== 1) problems.push(`one image for every process, found ${[...images].join(', ')}`);

  for (const service of objects.filter((object) => object.kind === 'Service')) {
    const spec = service.spec as {
      selector: Record<string, string>;
      ports: Array<{ name: string; targetPort: string | number }>;
    };
    const pods = objects.filter((object) => {
      const labels =
        (object.spec as { template?: { metadata?: { labels?: Record<string, string> } } } | undefined)?.template
          ?.metadata?.labels ?? {};
      return (
        object.kind === 'Deployment' && Object.entries(spec.selector).every(([key, value]) => labels[key] === value)
      );
    });
    if (pods.length === 0) problems.push(`Service/${service.metadata.name}: selects no Deployment`);
    for (const port of spec.ports) {
      const ok = pods.every((pod) =>
        containersOf(pod).some((container) =>
          (container.ports ?? []).some(
            (entry) => entry.name === port.targetPort || entry.containerPort === port.targetPort,
          ),
        ),
      );
      if (!ok) problems.push(`Service/${service.metadata.name}: targetPort ${port.targetPort} is no port of its pods`);
    }
  }

  const prefix = appSettings(objects).REDIS_PREFIX ?? 'mailguard:';
  for (const scaled of objects.filter((object) => object.kind === 'ScaledObject')) {
    const spec = scaled.spec as {
      scaleTargetRef: { name: string };
      triggers: Array<{ type: string; metadata: Record<string, string> }>;
    };
    const target = objects.find(
      (object) => object.kind === 'Deployment' && object.metadata.name === spec.scaleTargetRef.name,
    );
    const app = target ? appOf(containersOf(target)[0]) : '';
    const queue = QUEUE_NAMES.find((name) => app.startsWith(name === 'lists' ? 'list' : name));
    const redis = spec.triggers.find((trigger) => trigger.type === 'redis');
    if (!target || !queue) problems.push(`ScaledObject/${scaled.metadata.name}: scales no worker Deployment`);
    else if (redis?.metadata.listName !== `${prefix}bull:${queue}:wait`) {
      problems.push(
        `ScaledObject/${scaled.metadata.name}: redis trigger reads ${redis?.metadata.listName}, BullMQ keeps ${prefix}bull:${queue}:wait`,
      );
    }
  }
  return problems;
}
