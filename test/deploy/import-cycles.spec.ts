import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import * as ts from 'typescript';

/**
 * No TypeScript file under apps/ or libs/ may reach itself through its imports, type-only imports
 * included: a cycle makes load order decide whether a value is still undefined when it is read, and
 * it means two files share a type that belongs to one of them. The browser bundles (apps/widget,
 * apps/dashboard) are built apart and are left out, as tsconfig.json leaves them out.
 */
const root = resolve(__dirname, '../..');
const excluded = new Set(['apps/widget', 'apps/dashboard']);

const sources = (dir: string): string[] =>
  readdirSync(join(root, dir)).flatMap((name) => {
    const path = `${dir}/${name}`;
    if (excluded.has(path)) return [];
    if (statSync(join(root, path)).isDirectory()) return sources(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });

const asFile = (base: string): string | undefined =>
  [`${base}.ts`, `${base}/index.ts`].find((candidate) => existsSync(join(root, candidate)));

/** Each @mailguard/<name> where tsconfig.json's paths put it (libs/<layer>/<name>/src). */
const aliases = new Map(
  Object.entries(
    (
      JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8')) as {
        compilerOptions: { paths: Record<string, string[]> };
      }
    ).compilerOptions.paths,
  ).map(([alias, [dir]]) => [alias, dir.replace(/^\.\//, '')]),
);

/** The repository file an import names, or undefined for a package or a JSON file. */
const resolveImport = (from: string, specifier: string): string | undefined => {
  const alias = aliases.get(specifier);
  if (alias) return asFile(alias);
  if (!specifier.startsWith('.')) return undefined;
  return asFile(relative(root, resolve(root, dirname(from), specifier)));
};

const graph = (): Map<string, string[]> => {
  const files = [...sources('apps'), ...sources('libs')];
  return new Map(
    files.map((file) => {
      const { importedFiles } = ts.preProcessFile(readFileSync(join(root, file), 'utf8'), true, true);
      const targets = importedFiles.flatMap(({ fileName }) => resolveImport(file, fileName) ?? []);
      return [file, [...new Set(targets.filter((target) => target !== file))]];
    }),
  );
};

/** Tarjan's strongly connected components; every component of two files or more holds a cycle. */
const cycles = (edges: Map<string, string[]>): string[][] => {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of edges.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file)!, index.get(next)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1) found.push(component.sort());
  };
  for (const file of edges.keys()) if (!index.has(file)) visit(file);
  return found;
};

it('sees the aliased and relative imports it is meant to follow', () => {
  const edges = graph();
  expect(edges.get('libs/checks/verdict/src/index.ts')?.length).toBeGreaterThan(0);
  expect(edges.get('apps/gateway/src/main.ts')).toContain('apps/gateway/src/gateway.ts');
  expect([...edges.values()].flat()).toContain('libs/platform/db/src/index.ts');
});

it('has no import cycle among the files of apps/ and libs/', () => {
  expect(cycles(graph())).toEqual([]);
});

it('would report a two-file cycle', () => {
  const edges = new Map([
    ['a.ts', ['b.ts']],
    ['b.ts', ['a.ts', 'c.ts']],
    ['c.ts', []],
  ]);
  expect(cycles(edges)).toEqual([['a.ts', 'b.ts']]);
});
