import { readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';

/**
 * The part of kustomize that k8s/ uses, rendered offline (no kustomize binary here): resources (files and
 * directories), namespace, images, merge patches, ConfigMap/Secret generators (literals, files, labels) without
 * name hashes. Any other
 * field throws, so the manifests stay within what this renders the way `kubectl kustomize` does.
 */
export type K8sObject = Record<string, unknown> & {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
};

interface Kustomization {
  resources?: string[];
  namespace?: string;
  images?: Array<{ name: string; newName?: string; newTag?: string }>;
  patches?: Array<{ path: string }>;
  generatorOptions?: { disableNameSuffixHash?: boolean };
  configMapGenerator?: Generator[];
  secretGenerator?: Generator[];
}

interface Generator {
  name: string;
  behavior?: 'create' | 'merge';
  literals?: string[];
  /** `key=path` or `path` (the key is then the file's name), relative to the kustomization. */
  files?: string[];
  options?: { labels?: Record<string, string> };
}

const SUPPORTED = new Set([
  'apiVersion',
  'kind',
  'resources',
  'namespace',
  'images',
  'patches',
  'generatorOptions',
  'configMapGenerator',
  'secretGenerator',
]);
/** Kinds that live outside namespaces: kustomize leaves them without one. */
const CLUSTER_SCOPED = new Set(['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'CustomResourceDefinition']);

export function readYaml(file: string): Array<Record<string, unknown>> {
  return parseAllDocuments(readFileSync(file, 'utf8')).flatMap((doc) => {
    if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors.map((error) => error.message).join('; ')}`);
    const value = doc.toJS() as Record<string, unknown> | null;
    return value === null ? [] : [value];
  });
}

const isMap = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** RFC 7386 merge; lists in a patch would be merged by key by kustomize for built-in kinds, so they are refused. */
function mergePatch(target: Record<string, unknown>, patch: Record<string, unknown>, where: string): void {
  for (const [key, value] of Object.entries(patch)) {
    if (Array.isArray(value)) throw new Error(`${where}.${key}: patches here change maps and scalars only`);
    if (value === null) delete target[key];
    else if (isMap(value) && isMap(target[key])) mergePatch(target[key], value, `${where}.${key}`);
    else target[key] = value;
  }
}

function generate(
  kind: 'ConfigMap' | 'Secret',
  generator: Generator,
  objects: K8sObject[],
  hashless: boolean,
  file: string,
): void {
  if (!hashless)
    throw new Error(
      `${file}: generators need generatorOptions.disableNameSuffixHash (names are referenced as they are)`,
    );
  const data = Object.fromEntries([
    ...(generator.literals ?? []).map((literal) => {
      const at = literal.indexOf('=');
      if (at < 1) throw new Error(`${file}: literal ${JSON.stringify(literal)} is not KEY=value`);
      return [literal.slice(0, at), literal.slice(at + 1)];
    }),
    ...(generator.files ?? []).map((entry) => {
      const [key, path] = entry.includes('=') ? entry.split('=', 2) : [basename(entry), entry];
      return [key, readFileSync(resolve(file, '..', path), 'utf8')];
    }),
  ]);
  const labels = generator.options?.labels;
  const field = kind === 'Secret' ? 'stringData' : 'data';
  const existing = objects.find((object) => object.kind === kind && object.metadata.name === generator.name);
  if (generator.behavior === 'merge') {
    if (!existing) throw new Error(`${file}: ${kind} ${generator.name} to merge into does not exist`);
    existing[field] = { ...(existing[field] as Record<string, string>), ...data };
    if (labels) existing.metadata.labels = { ...existing.metadata.labels, ...labels };
    return;
  }
  if (existing) throw new Error(`${file}: ${kind} ${generator.name} exists already`);
  const metadata = { name: generator.name, ...(labels ? { labels } : {}) };
  objects.push({ apiVersion: 'v1', kind, metadata, ...(kind === 'Secret' ? { type: 'Opaque' } : {}), [field]: data });
}

function podSpecs(
  object: K8sObject,
): Array<{ containers: Array<{ image: string }>; initContainers?: Array<{ image: string }> }> {
  const template = (object.spec as { template?: { spec?: unknown } } | undefined)?.template?.spec;
  return template ? [template as ReturnType<typeof podSpecs>[number]] : [];
}

/** Renders the kustomization in `dir` (a folder holding kustomization.yaml) to its objects. */
export function render(dir: string): K8sObject[] {
  const file = join(dir, 'kustomization.yaml');
  const [kustomization] = readYaml(file) as Kustomization[];
  const unknown = Object.keys(kustomization).filter((key) => !SUPPORTED.has(key));
  if (unknown.length > 0) throw new Error(`${file}: fields this renderer does not implement: ${unknown.join(', ')}`);

  const objects: K8sObject[] = [];
  for (const resource of kustomization.resources ?? []) {
    const path = resolve(dir, resource);
    objects.push(...(statSync(path).isDirectory() ? render(path) : (readYaml(path) as K8sObject[])));
  }
  const hashless = kustomization.generatorOptions?.disableNameSuffixHash === true;
  for (const generator of kustomization.configMapGenerator ?? [])
    generate('ConfigMap', generator, objects, hashless, file);
  for (const generator of kustomization.secretGenerator ?? []) generate('Secret', generator, objects, hashless, file);
  for (const { path } of kustomization.patches ?? []) {
    for (const patch of readYaml(resolve(dir, path)) as K8sObject[]) {
      const target = objects.find(
        (object) => object.kind === patch.kind && object.metadata.name === patch.metadata.name,
      );
      if (!target) throw new Error(`${join(dir, path)}: no ${patch.kind} ${patch.metadata.name} to patch`);
      const { apiVersion: _apiVersion, kind: _kind, ...rest } = patch;
      mergePatch(target, rest, `${patch.kind}/${patch.metadata.name}`);
    }
  }
  for (const image of kustomization.images ?? []) {
    for (const spec of objects.flatMap(podSpecs)) {
      for (const container of [...spec.containers, ...(spec.initContainers ?? [])]) {
        const [name, tag] = container.image.split(':');
        if (name !== image.name) continue;
        container.image = `${image.newName ?? name}${(image.newTag ?? tag) ? `:${image.newTag ?? tag}` : ''}`;
      }
    }
  }
  if (kustomization.namespace) {
    for (const object of objects)
      if (!CLUSTER_SCOPED.has(object.kind)) object.metadata.namespace = kustomization.namespace;
  }
  return objects;
}
