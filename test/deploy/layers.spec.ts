import { execFile } from 'node:child_process';
import { resolve } from 'node:path';

/**
 * The lint rule that keeps libs/ layered (LAYERS in eslint.config.mjs): imports point down, from
 * composition to product to platform to checks to foundation, never up, and never into apps/.
 * ESLint runs as `npm run lint` does (its config is an ES module, which Jest's sandbox cannot load),
 * on code given as if it were written at a path in libs/.
 */
jest.setTimeout(60_000);

const root = resolve(__dirname, '../..');

interface LintMessage {
  ruleId: string | null;
  line: number;
  message: string;
}

/** The layer rule's messages for `lines` written at `file`. */
function layerErrors(file: string, lines: string[]): Promise<LintMessage[]> {
  return new Promise((done, fail) => {
    const child = execFile(
      resolve(root, 'node_modules/.bin/eslint'),
      ['--stdin', '--stdin-filename', file, '--format', 'json'],
      { cwd: root },
      (error, stdout) => {
        // Exit code 1 is "problems found"; anything else is ESLint failing.
        if (error && error.code !== 1) return fail(error);
        const [result] = JSON.parse(stdout) as Array<{ messages: LintMessage[] }>;
        done(result.messages.filter((message) => message.ruleId === 'no-restricted-imports'));
      },
    );
    child.stdin?.end(`${lines.join('\n')}\n`);
  });
}

it('refuses an upward import through an alias: a value, a type and a re-export', async () => {
  const errors = await layerErrors('libs/platform/db/src/upward.ts', [
    "import { ListStore } from '@mailguard/lists';",
    "import type { CoreOptions } from '@mailguard/core';",
    "export { WorkerModule } from '@mailguard/worker';",
    'export type Both = [ListStore, CoreOptions];',
  ]);
  expect(errors.map((error) => error.line)).toEqual([1, 2, 3]);
  expect(errors[0].message).toContain('libs/platform may import only from its own layer and those below it');
  const foundation = await layerErrors('libs/foundation/config/src/upward.ts', [
    "import { detectProvider } from '@mailguard/smtp';",
    'export { detectProvider };',
  ]);
  expect(foundation.map((error) => error.line)).toEqual([1]);
});

it('refuses an upward import by a relative path, and any import of apps/', async () => {
  const relative = await layerErrors('libs/checks/smtp/src/upward.ts', [
    "import { Database } from '../../../platform/db/src';",
    'export { Database };',
  ]);
  expect(relative.map((error) => error.line)).toEqual([1]);
  const apps = await layerErrors('libs/composition/core/src/upward.ts', [
    "import { bootstrap } from '../../../../apps/gateway/src/gateway';",
    'export { bootstrap };',
  ]);
  expect(apps.map((error) => error.line)).toEqual([1]);
});

it('lets a library import from its own layer and every layer below', async () => {
  const errors = await layerErrors('libs/product/pipeline/src/downward.ts', [
    "import { ListStore } from '@mailguard/lists';",
    "import { Database } from '@mailguard/db';",
    "import { detectProvider } from '@mailguard/smtp';",
    "import { loadConfig } from '@mailguard/config';",
    'export { ListStore, Database, detectProvider, loadConfig };',
  ]);
  expect(errors).toEqual([]);
});
