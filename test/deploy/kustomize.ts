import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';

/**
 * The part of kustomize that k8s/ uses, rendered offline and compared with `kubectl kustomize` where that exists
 * (kustomize.spec.ts): resources (files and directories), namespace (the Namespace object renamed with it),
 * images, patches (strategic merge of maps and scalars, `$patch: delete`, and JSON 6902 operations on a
 * `target`), replacements (with delimiter options), and ConfigMap/Secret generators (literals, env files, files,
 * labels) with kustomize's content hash in their names and every reference to them rewritten. Any other field
 * throws, so the manifests stay within what this renders the way kustomize does.
 */
export type K8sObject = Record<string, unknown> & {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
};

interface Selector {
  kind?: string;
  name?: string;
}

interface Replacement {
  source: Selector & { fieldPath: string; options?: FieldOptions };
  targets: Array<{ select: Selector; fieldPaths: string[]; options?: FieldOptions }>;
}

interface FieldOptions {
  delimiter?: string;
  index?: number;
}

interface Kustomization {
  resources?: string[];
  namespace?: string;
  images?: Array<{ name: string; newName?: string; newTag?: string }>;
  patches?: Array<{ path: string; target?: Selector }>;
  replacements?: Replacement[];
  generatorOptions?: { disableNameSuffixHash?: boolean };
  configMapGenerator?: Generator[];
  secretGenerator?: Generator[];
}

interface Generator {
  name: string;
  behavior?: 'create' | 'merge';
  literals?: string[];
  /** Files of KEY=value lines (# comments and blank lines skipped), relative to the kustomization. */
  envs?: string[];
  /** `key=path` or `path` (the key is then the file's name), relative to the kustomization. */
  files?: string[];
  options?: { labels?: Record<string, string>; disableNameSuffixHash?: boolean };
}

interface JsonPatchOperation {
  op: 'add' | 'replace' | 'remove';
  path: string;
  value?: unknown;
}

const SUPPORTED = new Set([
  'apiVersion',
  'kind',
  'resources',
  'namespace',
  'images',
  'patches',
  'replacements',
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

/** RFC 6902 add, replace and remove, on the paths of JSON Pointer (RFC 6901). */
function jsonPatch(target: Record<string, unknown>, operations: JsonPatchOperation[], where: string): void {
  for (const { op, path, value } of operations) {
    const keys = path
      .split('/')
      .slice(1)
      .map((key) => key.replace(/~1/g, '/').replace(/~0/g, '~'));
    const last = keys.pop()!;
    let parent: unknown = target;
    for (const key of keys) parent = (parent as Record<string, unknown>)?.[key];
    if (typeof parent !== 'object' || parent === null) throw new Error(`${where}: ${op} ${path}: no such parent`);
    const container = parent as Record<string, unknown> & unknown[];
    const exists = Array.isArray(container) ? Number(last) < container.length : last in container;
    if (op !== 'add' && !exists) throw new Error(`${where}: ${op} ${path}: nothing there`);
    if (op === 'remove') {
      if (Array.isArray(container)) container.splice(Number(last), 1);
      else delete container[last];
    } else if (op === 'add' && Array.isArray(container))
      container.splice(last === '-' ? container.length : Number(last), 0, value);
    else container[last] = value;
  }
}

const selects = (selector: Selector, object: K8sObject) =>
  (!selector.kind || selector.kind === object.kind) && (!selector.name || selector.name === object.metadata.name);

/** A dotted field path (`spec.template.spec.containers.0.image`) read or written. */
function field(object: K8sObject, fieldPath: string, value?: string): unknown {
  const keys = fieldPath.split('.');
  const last = keys.pop()!;
  let parent: unknown = object;
  for (const key of keys) parent = (parent as Record<string, unknown>)?.[key];
  if (typeof parent !== 'object' || parent === null) throw new Error(`${object.metadata.name}: no field ${fieldPath}`);
  if (value !== undefined) (parent as Record<string, unknown>)[last] = value;
  return (parent as Record<string, unknown>)[last];
}

function replace(objects: K8sObject[], replacement: Replacement, file: string): void {
  const sources = objects.filter((object) => selects(replacement.source, object));
  if (sources.length !== 1) throw new Error(`${file}: replacement source matches ${sources.length} objects`);
  let value = String(field(sources[0], replacement.source.fieldPath));
  const { delimiter, index } = replacement.source.options ?? {};
  if (delimiter !== undefined) value = value.split(delimiter)[index ?? 0] ?? '';
  for (const target of replacement.targets) {
    for (const object of objects.filter((candidate) => selects(target.select, candidate))) {
      for (const fieldPath of target.fieldPaths) {
        const { delimiter: cut, index: at = 0 } = target.options ?? {};
        if (cut === undefined) {
          field(object, fieldPath, value);
          continue;
        }
        const parts = String(field(object, fieldPath)).split(cut);
        parts[at] = value;
        field(object, fieldPath, parts.join(cut));
      }
    }
  }
}

/** Generated objects still to be renamed with their content hash, and their names before it. */
const TO_HASH = new WeakSet<K8sObject>();

function generate(
  kind: 'ConfigMap' | 'Secret',
  generator: Generator,
  objects: K8sObject[],
  hashless: boolean,
  file: string,
) {
  const pairs = (text: string) =>
    text
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#'));
  const literal = (entry: string) => {
    const at = entry.indexOf('=');
    if (at < 1) throw new Error(`${file}: ${JSON.stringify(entry)} is not KEY=value`);
    return [entry.slice(0, at), entry.slice(at + 1)];
  };
  const data: Record<string, string> = Object.fromEntries([
    ...(generator.envs ?? []).flatMap((path) => pairs(readFileSync(resolve(file, '..', path), 'utf8')).map(literal)),
    ...(generator.literals ?? []).map(literal),
    ...(generator.files ?? []).map((entry) => {
      const [key, path] = entry.includes('=') ? entry.split('=', 2) : [basename(entry), entry];
      return [key, readFileSync(resolve(file, '..', path), 'utf8')];
    }),
  ]);
  // Secrets as kustomize writes them: base64 under `data`.
  const encoded =
    kind === 'Secret'
      ? Object.fromEntries(Object.entries(data).map(([key, value]) => [key, Buffer.from(value).toString('base64')]))
      : data;
  const labels = generator.options?.labels;
  const existing = objects.find((object) => object.kind === kind && object.metadata.name === generator.name);
  if (generator.behavior === 'merge') {
    if (!existing) throw new Error(`${file}: ${kind} ${generator.name} to merge into does not exist`);
    existing.data = { ...(existing.data as Record<string, string>), ...encoded };
    if (labels) existing.metadata.labels = { ...existing.metadata.labels, ...labels };
    return;
  }
  if (existing) throw new Error(`${file}: ${kind} ${generator.name} exists already`);
  const metadata = { name: generator.name, ...(labels ? { labels } : {}) };
  const object: K8sObject = {
    apiVersion: 'v1',
    kind,
    metadata,
    ...(kind === 'Secret' ? { type: 'Opaque' } : {}),
    data: encoded,
  };
  if (!(hashless || generator.options?.disableNameSuffixHash)) TO_HASH.add(object);
  objects.push(object);
}

/**
 * kustomize's name suffix (api/hasher): the SHA-256 of the JSON of kind, data (and a Secret's type), keys
 * sorted and HTML characters escaped as Go's encoder does; its first 10 hex digits with 0, 1, 3, a, e swapped for
 * letters, so that the suffix never reads as a number.
 */
export function nameHash(object: K8sObject): string {
  const sorted = (value: Record<string, unknown>): Record<string, unknown> =>
    Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, value[key]]),
    );
  const content: Record<string, unknown> = {
    data: sorted((object.data as Record<string, string>) ?? {}),
    kind: object.kind,
    // kustomize hashes with the name left empty (as its output shows): the content alone decides.
    name: '',
    ...(object.kind === 'Secret' ? { type: object.type } : {}),
  };
  const json = JSON.stringify(sorted(content)).replace(
    /[<>&\u2028\u2029]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  const hex = createHash('sha256').update(json).digest('hex');
  const swap: Record<string, string> = { '0': 'g', '1': 'h', '3': 'k', a: 'm', e: 't' };
  return [...hex.slice(0, 10)].map((char) => swap[char] ?? char).join('');
}

interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  volumes?: Array<{ configMap?: { name: string }; secret?: { secretName: string } }>;
}

interface Container {
  image: string;
  envFrom?: Array<{ configMapRef?: { name: string }; secretRef?: { name: string } }>;
  env?: Array<{ valueFrom?: { configMapKeyRef?: { name: string }; secretKeyRef?: { name: string } } }>;
}

function podSpecs(object: K8sObject): PodSpec[] {
  const template = (object.spec as { template?: { spec?: unknown } } | undefined)?.template?.spec;
  return template ? [template as PodSpec] : [];
}

/** Gives each generated object its hashed name, and every pod's reference to it the same (kustomize's nameReference). */
function hashNames(objects: K8sObject[]): void {
  const renamed = new Map<string, string>();
  for (const object of objects.filter((candidate) => TO_HASH.has(candidate))) {
    const name = `${object.metadata.name}-${nameHash(object)}`;
    renamed.set(`${object.kind}/${object.metadata.name}`, name);
    object.metadata.name = name;
  }
  const rename = (kind: string, ref: { name?: string; secretName?: string } | undefined) => {
    if (!ref) return;
    const key = 'secretName' in ref ? 'secretName' : 'name';
    ref[key] = renamed.get(`${kind}/${ref[key]}`) ?? ref[key];
  };
  for (const spec of objects.flatMap(podSpecs)) {
    for (const container of [...spec.containers, ...(spec.initContainers ?? [])]) {
      for (const from of container.envFrom ?? []) {
        rename('ConfigMap', from.configMapRef);
        rename('Secret', from.secretRef);
      }
      for (const entry of container.env ?? []) {
        rename('ConfigMap', entry.valueFrom?.configMapKeyRef);
        rename('Secret', entry.valueFrom?.secretKeyRef);
      }
    }
    for (const volume of spec.volumes ?? []) {
      rename('ConfigMap', volume.configMap);
      rename('Secret', volume.secret);
    }
  }
}

function build(dir: string): K8sObject[] {
  const file = join(dir, 'kustomization.yaml');
  const [kustomization] = readYaml(file) as Kustomization[];
  const unknown = Object.keys(kustomization).filter((key) => !SUPPORTED.has(key));
  if (unknown.length > 0) throw new Error(`${file}: fields this renderer does not implement: ${unknown.join(', ')}`);

  const objects: K8sObject[] = [];
  for (const resource of kustomization.resources ?? []) {
    const path = resolve(dir, resource);
    objects.push(...(statSync(path).isDirectory() ? build(path) : (readYaml(path) as K8sObject[])));
  }
  const hashless = kustomization.generatorOptions?.disableNameSuffixHash === true;
  for (const generator of kustomization.configMapGenerator ?? [])
    generate('ConfigMap', generator, objects, hashless, file);
  for (const generator of kustomization.secretGenerator ?? []) generate('Secret', generator, objects, hashless, file);
  for (const { path, target } of kustomization.patches ?? []) {
    const where = join(dir, path);
    if (target) {
      const matched = objects.filter((object) => selects(target, object));
      if (matched.length === 0) throw new Error(`${where}: its target matches nothing`);
      const [operations] = parseAllDocuments(readFileSync(resolve(dir, path), 'utf8')).map((doc) => doc.toJS());
      for (const object of matched) jsonPatch(object, operations as JsonPatchOperation[], where);
      continue;
    }
    for (const patch of readYaml(resolve(dir, path)) as K8sObject[]) {
      const at = objects.findIndex(
        (object) => object.kind === patch.kind && object.metadata.name === patch.metadata.name,
      );
      if (at < 0) throw new Error(`${where}: no ${patch.kind} ${patch.metadata.name} to patch`);
      const { apiVersion: _apiVersion, kind: _kind, $patch: directive, ...rest } = patch;
      if (directive === 'delete') objects.splice(at, 1);
      else mergePatch(objects[at], rest, `${patch.kind}/${patch.metadata.name}`);
    }
  }
  if (kustomization.namespace) {
    for (const object of objects) {
      if (object.kind === 'Namespace') object.metadata.name = kustomization.namespace;
      else if (!CLUSTER_SCOPED.has(object.kind)) object.metadata.namespace = kustomization.namespace;
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
  for (const replacement of kustomization.replacements ?? []) replace(objects, replacement, file);
  return objects;
}

/** Renders the kustomization in `dir` (a folder holding kustomization.yaml) to its objects. */
export function render(dir: string): K8sObject[] {
  const objects = build(dir);
  hashNames(objects);
  return objects;
}
