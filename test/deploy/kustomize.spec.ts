import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { nameHash, render, type K8sObject } from './kustomize';
import { overlays } from './k8s-validate';

const root = resolve(__dirname, '../..');

/** `kubectl kustomize` (or `kustomize build`) where one is installed: the renderer is held to its output. */
function kustomizeBinary(): string[] | null {
  for (const command of [
    ['kubectl', 'kustomize'],
    ['kustomize', 'build'],
  ]) {
    try {
      execFileSync(command[0], command[0] === 'kubectl' ? ['version', '--client'] : ['version'], { stdio: 'ignore' });
      return command;
    } catch {
      // not installed
    }
  }
  return null;
}

/** Objects by kind and name; a Secret's values decoded (kustomize folds long base64 lines, which decoding ignores). */
const byId = (objects: K8sObject[]) =>
  Object.fromEntries(
    objects.map((object) => [
      `${object.kind}/${object.metadata.name}`,
      object.kind === 'Secret'
        ? {
            ...object,
            data: Object.fromEntries(
              Object.entries(object.data as Record<string, string>).map(([key, value]) => [
                key,
                Buffer.from(value, 'base64').toString(),
              ]),
            ),
          }
        : object,
    ]),
  );

const binary = kustomizeBinary();

(binary ? describe.each(overlays(root)) : describe.skip.each(overlays(root)))(
  'overlay %s, rendered as kustomize renders it',
  (overlay) => {
    it('gives the same objects, generated names and hashes included', () => {
      const [command, ...args] = binary!;
      const output = execFileSync(command, [...args, join(root, 'k8s', 'overlays', overlay)], { encoding: 'utf8' });
      const expected = parseAllDocuments(output).map((doc) => doc.toJS() as K8sObject);
      const rendered = JSON.parse(JSON.stringify(render(join(root, 'k8s', 'overlays', overlay)))) as K8sObject[];
      expect(byId(rendered)).toEqual(byId(expected));
    });
  },
);

describe('the renderer', () => {
  it("hashes a generated ConfigMap's content into its name, as kustomize does (a known kustomize output)", () => {
    // `kubectl kustomize` (kustomize v5.5.0) names {a: "<&>"} generated as `x`: x-m9gb99d79d.
    expect(nameHash({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { a: '<&>' } })).toBe(
      'm9gb99d79d',
    );
  });

  it('renames each generated ConfigMap by its content and rewrites the references to it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kustomize-'));
    try {
      mkdirSync(join(dir, 'base'));
      writeFileSync(
        join(dir, 'base', 'kustomization.yaml'),
        'resources: [pod.yaml]\nconfigMapGenerator:\n  - { name: settings, literals: [A=1] }\n',
      );
      writeFileSync(
        join(dir, 'base', 'pod.yaml'),
        'apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: app }\nspec:\n  template:\n    spec:\n      containers:\n        - { name: app, image: app, envFrom: [{ configMapRef: { name: settings } }] }\n',
      );
      writeFileSync(
        join(dir, 'kustomization.yaml'),
        'resources: [base]\nconfigMapGenerator:\n  - { name: settings, behavior: merge, literals: [A=2] }\n',
      );
      const names = (objects: K8sObject[]) => {
        const map = objects.find((object) => object.kind === 'ConfigMap')!;
        const deployment = objects.find((object) => object.kind === 'Deployment')!;
        const spec = deployment.spec as {
          template: { spec: { containers: Array<{ envFrom: Array<{ configMapRef: { name: string } }> }> } };
        };
        return [map.metadata.name, spec.template.spec.containers[0].envFrom[0].configMapRef.name];
      };
      const [base, baseRef] = names(render(join(dir, 'base')));
      const [merged, mergedRef] = names(render(dir));
      expect(base).toMatch(/^settings-[a-z0-9]{10}$/);
      expect([baseRef, mergedRef]).toEqual([base, merged]);
      expect(merged).not.toBe(base);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
