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
