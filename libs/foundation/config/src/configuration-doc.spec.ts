import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tableRows } from '../../../../test/support/markdown';
import { loadClientConfig, loadConfig } from './index';

/*
 * docs/configuration.md against the code: the variables its tables name are exactly the ones the
 * service and the CLI read. A variable added to the configuration without a row, or a row whose
 * variable is no longer read, fails here.
 */

const root = resolve(__dirname, '../../../..');

/** Every variable name `loadConfig` and `loadClientConfig` ask an environment for, set or not. */
function variablesRead(): Set<string> {
  const asked = new Set<string>();
  const env = new Proxy({} as Record<string, string | undefined>, {
    get: (_, name) => {
      if (typeof name === 'string') asked.add(name);
      return undefined;
    },
  });
  loadConfig(env);
  loadClientConfig(env);
  return asked;
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'dist') return [];
    if (statSync(path).isDirectory()) return sources(path);
    return /\.(ts|tsx|js)$/.test(name) && !/\.spec\.ts$/.test(name) ? [path] : [];
  });
}

/** Variables read from `process.env` directly, outside the typed configuration (bin/start-all.js). */
function variablesReadDirectly(): Set<string> {
  const names = new Set<string>();
  for (const file of ['apps', 'libs', 'bin'].flatMap((dir) => sources(join(root, dir)))) {
    for (const [, name] of readFileSync(file, 'utf8').matchAll(/process\.env(?:\.|\[['"])([A-Z][A-Z0-9_]*)/g))
      names.add(name);
  }
  return names;
}

/** The variables the tables of docs/configuration.md name in their first column. */
function variablesDocumented(): Set<string> {
  const markdown = readFileSync(join(root, 'docs', 'configuration.md'), 'utf8');
  const names = new Set<string>();
  for (const [first] of tableRows(markdown))
    for (const [, name] of first.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) names.add(name);
  return names;
}

describe('docs/configuration.md', () => {
  it('names every variable the service and the CLI read, and no other', () => {
    const read = new Set([...variablesRead(), ...variablesReadDirectly()]);
    const documented = variablesDocumented();
    expect({
      undocumented: [...read].filter((name) => !documented.has(name)).sort(),
      notRead: [...documented].filter((name) => !read.has(name)).sort(),
    }).toEqual({ undocumented: [], notRead: [] });
  });

  it('sees the direct reads of process.env', () => {
    // bin/start-all.js checks these two before anything starts.
    expect([...variablesReadDirectly()]).toEqual(expect.arrayContaining(['DATABASE_URL', 'REDIS_URL']));
  });
});
