import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * The repository stands on its own: nothing in what it ships or documents points at files a clone
 * does not hold, and the README stays a page a newcomer reads to the end.
 */
const root = resolve(__dirname, '../../../..');
/** Written in pieces so that this file does not name what it looks for. */
const OUTSIDE = [['API', 'md'].join('.'), ['SPEC', 'md'].join('.'), ['..', 'shared'].join('/')];

it('mentions no file outside the repository in the README, apps/, libs/, docs/ or bin/', () => {
  const files = execFileSync(
    'git',
    ['ls-files', '--cached', '--others', '--exclude-standard', 'README.md', 'apps', 'libs', 'docs', 'bin'],
    {
      cwd: root,
      encoding: 'utf8',
    },
  )
    .split('\n')
    .filter((file) => /\.(ts|tsx|js|mjs|json|md|yaml|yml|html|css)$/.test(file));
  expect(files.length).toBeGreaterThan(100);
  const mentions = files.flatMap((file) => {
    const text = readFileSync(join(root, file), 'utf8');
    return OUTSIDE.filter((name) => text.includes(name)).map((name) => `${file}: ${name}`);
  });
  expect(mentions).toEqual([]);
});

it('keeps the README to 300 lines', () => {
  expect(readFileSync(join(root, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(300);
});
