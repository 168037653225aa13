import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * nest-cli.json, tsconfig paths and Jest's module mapper describe the monorepo's projects; each must
 * name every app and lib folder there is, and nothing else, so `nest` commands and the build agree.
 */
const root = resolve(__dirname, '../..');

interface Project {
  type: 'application' | 'library';
  root: string;
  entryFile: string;
  sourceRoot: string;
}

const readJson = <T>(file: string): T => JSON.parse(readFileSync(join(root, file), 'utf8')) as T;
const folders = (parent: string) =>
  readdirSync(join(root, parent), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();

const nestCli = readJson<{ projects: Record<string, Project> }>('nest-cli.json');
const projectsOf = (type: Project['type']) =>
  Object.entries(nestCli.projects)
    .filter(([, project]) => project.type === type)
    .map(([name]) => name)
    .sort();

it('lists as an application every app folder the build compiles, and no other', () => {
  // apps/widget is a browser bundle (esbuild), which tsconfig.build.json leaves out.
  const excluded = readJson<{ exclude: string[] }>('tsconfig.build.json').exclude;
  const apps = folders('apps').filter((name) => !excluded.includes(`apps/${name}`));
  expect(apps.length).toBeGreaterThan(0);
  expect(projectsOf('application')).toEqual(apps);
  for (const name of apps) {
    const project = nestCli.projects[name];
    expect(project).toMatchObject({ root: `apps/${name}`, sourceRoot: `apps/${name}/src` });
    expect(existsSync(join(root, `${project.entryFile}.ts`))).toBe(true);
  }
});

it('lists as a library every lib folder (libs/<layer>/<name>), each reachable as @mailguard/<name> from TypeScript and Jest', () => {
  const dirs = folders('libs').flatMap((layer) => folders(`libs/${layer}`).map((name) => `libs/${layer}/${name}`));
  const libs = dirs.map((dir) => dir.split('/')[2]).sort();
  expect(libs.length).toBeGreaterThan(0);
  expect(new Set(libs).size).toBe(libs.length);
  expect(projectsOf('library')).toEqual(libs);
  const { paths } = readJson<{ compilerOptions: { paths: Record<string, string[]> } }>('tsconfig.json').compilerOptions;
  expect(Object.keys(paths).sort()).toEqual(libs.map((name) => `@mailguard/${name}`));
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const jest = require(join(root, 'jest.config.js')) as {
    projects: Array<{ moduleNameMapper: Record<string, string> }>;
  };
  for (const dir of dirs) {
    const name = dir.split('/')[2];
    const project = nestCli.projects[name];
    expect(project).toMatchObject({ root: dir, sourceRoot: `${dir}/src` });
    expect(existsSync(join(root, project.sourceRoot, `${project.entryFile}.ts`))).toBe(true);
    expect(paths[`@mailguard/${name}`]).toEqual([`./${dir}/src`]);
    for (const { moduleNameMapper } of jest.projects) {
      const specifier = `@mailguard/${name}`;
      const mapped = Object.entries(moduleNameMapper).find(([pattern]) => new RegExp(pattern).test(specifier));
      expect(mapped && specifier.replace(new RegExp(mapped[0]), mapped[1])).toBe(`<rootDir>/${dir}/src`);
    }
  }
});
