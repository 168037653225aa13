import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { loadConfig, type WorkerName } from '@mailguard/config';

/** No Docker engine or cluster here: check what can be checked without one. */
const root = resolve(__dirname, '../..');

function documents(file: string): Array<Record<string, unknown>> {
  return parseAllDocuments(readFileSync(file, 'utf8')).map((doc) => {
    expect(doc.errors).toEqual([]);
    return doc.toJS() as Record<string, unknown>;
  });
}

interface Container {
  command: string[];
  ports?: Array<{ containerPort: number }>;
  readinessProbe?: { httpGet: { path: string } };
  livenessProbe?: { httpGet: { path: string } };
}

describe('Kubernetes manifests', () => {
  const files = readdirSync(join(root, 'k8s')).filter((name) => name.endsWith('.yaml'));

  it('parse, and every document names its kind', () => {
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) for (const doc of documents(join(root, 'k8s', file))) expect(doc.kind).toEqual(expect.any(String));
  });

  it('list every manifest (but the secret example) in the kustomization', () => {
    const [kustomization] = documents(join(root, 'k8s', 'kustomization.yaml')) as Array<{ resources: string[] }>;
    const expected = files.filter((name) => name !== 'kustomization.yaml' && !name.includes('example'));
    expect([...kustomization.resources].sort()).toEqual(expected.sort());
  });

  it('run commands that exist in the build, with health probes on the real endpoints', () => {
    const deployments = files.flatMap((file) => documents(join(root, 'k8s', file))).filter((doc) => doc.kind === 'Deployment');
    expect(deployments.length).toBeGreaterThan(0);
    for (const deployment of deployments) {
      const containers = (deployment as { spec: { template: { spec: { containers: Container[] } } } }).spec.template.spec.containers;
      for (const container of containers) {
        const [node, entry] = container.command;
        expect(node).toBe('node');
        expect(existsSync(join(root, entry.replace(/^dist\//, '').replace(/\.js$/, '.ts')))).toBe(true);
        if (container.readinessProbe) expect(container.readinessProbe.httpGet.path).toBe('/health/ready');
        if (container.livenessProbe) expect(container.livenessProbe.httpGet.path).toBe('/health/live');
      }
    }
  });

  it('expose the port each process listens on with the ConfigMap: the gateway PORT, each worker kind its own', () => {
    const [configMap] = documents(join(root, 'k8s', 'configmap.yaml')) as Array<{ data: Record<string, string> }>;
    const config = loadConfig(configMap.data);
    const containers = files
      .flatMap((file) => documents(join(root, 'k8s', file)))
      .filter((doc) => doc.kind === 'Deployment')
      .flatMap((deployment) => (deployment as { spec: { template: { spec: { containers: Container[] } } } }).spec.template.spec.containers);
    expect(containers.length).toBe(5);
    for (const container of containers) {
      const app = /^dist\/apps\/([a-z-]+)\//.exec(container.command[1])?.[1] as 'gateway' | WorkerName;
      const port = app === 'gateway' ? config.http.port : config.workers.ports[app];
      expect(container.ports?.map((entry) => entry.containerPort)).toEqual([port]);
    }
  });
});

describe('docker', () => {
  it('compose parses and builds from the Dockerfile beside it', () => {
    const [compose] = documents(join(root, 'docker', 'docker-compose.yml')) as Array<{
      services: Record<string, { build?: { context: string; dockerfile: string }; command?: string[] }>;
    }>;
    for (const service of Object.values(compose.services)) {
      if (!service.build) continue;
      expect(existsSync(resolve(root, 'docker', service.build.context, service.build.dockerfile))).toBe(true);
      const entry = service.command?.[1] ?? '';
      expect(existsSync(join(root, entry.replace(/^dist\//, '').replace(/\.js$/, '.ts')))).toBe(true);
    }
  });

  it('copies only paths that exist into the image', () => {
    const dockerfile = readFileSync(join(root, 'docker', 'Dockerfile'), 'utf8');
    const sources = [...dockerfile.matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap((match) => match[1].split(/\s+/));
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) expect(existsSync(join(root, source))).toBe(true);
  });

  it('installs the image for production: no dev tools, and not the optional embedded Postgres (PGlite)', () => {
    const dockerfile = readFileSync(join(root, 'docker', 'Dockerfile'), 'utf8');
    const stages = dockerfile
      .split(/^FROM /m)
      .slice(1)
      .map((body) => ({ name: /^\S+\s+AS\s+(\S+)/i.exec(body)?.[1] ?? null, body }));
    const final = stages[stages.length - 1];
    // The final stage's node_modules: copied from an earlier stage, or installed in the final one.
    const from = /^COPY --from=(\S+) \S*node_modules\S* /m.exec(final.body)?.[1];
    const installing = from ? stages.find((stage) => stage.name === from) : final;
    const lastInstall = [...(installing?.body ?? '').matchAll(/npm (?:ci|install|prune)\b[^\n&;]*/g)].at(-1)?.[0];
    expect(lastInstall).toMatch(/--omit=dev\b/);
    expect(lastInstall).toMatch(/--omit=optional\b/);

    const pglite = ['@electric-sql/pglite', '@electric-sql/pglite-socket'];
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, Record<string, string>>;
    for (const name of pglite) {
      expect(manifest.optionalDependencies).toHaveProperty([name]);
      expect(manifest.dependencies).not.toHaveProperty([name]);
    }
    // Loaded lazily (import()) where DATABASE_URL is unset: a static import would need it everywhere.
    const sources = ['apps', 'libs']
      .flatMap((dir) => readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' }).map((file) => join(dir, file)))
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.spec.ts'));
    const staticImports = sources.filter((file) =>
      /^\s*(import|export)\s(?!type\b)[^;]*from\s+'@electric-sql\//m.test(readFileSync(join(root, file), 'utf8')),
    );
    expect(staticImports).toEqual([]);
    expect(sources.filter((file) => readFileSync(join(root, file), 'utf8').includes("import('@electric-sql/pglite')"))).toEqual([
      join('libs', 'db', 'src', 'embedded-postgres.ts'),
    ]);
  });

  it('copies into the build stage every script that `npm run build` runs', () => {
    const dockerfile = readFileSync(join(root, 'docker', 'Dockerfile'), 'utf8');
    const copied = [...dockerfile.matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap((match) => match[1].split(/\s+/));
    const build = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.build;
    const scripts = [...build.matchAll(/node (\S+\.js)/g)].map((match) => match[1]);
    expect(scripts).toContain('bin/build-widget.js');
    for (const script of scripts) expect(copied.some((source) => script === source || script.startsWith(`${source}/`))).toBe(true);
  });
});
