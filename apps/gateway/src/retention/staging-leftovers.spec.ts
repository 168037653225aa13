import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STAGING_PREFIX } from '../lists/upload';
import { LEFTOVER_QUIET_MS, removeLeftoverStaging } from './staging-leftovers';

/** Leftover staging folders, in a root of the test's own (the real temporary folder is other processes'). */
let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'mailguard-leftovers-'));
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

/** The id of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await once(child, 'exit');
  return child.pid as number;
}

/** A staging folder of `pid` holding one partial upload, last written `ageMs` ago. */
function staged(pid: number, ageMs: number): string {
  const dir = join(root, `${STAGING_PREFIX}${pid}`);
  const upload = join(dir, 'upload-abc');
  mkdirSync(upload, { recursive: true });
  writeFileSync(join(upload, 'list.csv'), 'email\njohn.doe@acme.test\n');
  const at = new Date(Date.now() - ageMs);
  for (const path of [join(upload, 'list.csv'), upload, dir]) utimesSync(path, at, at);
  return dir;
}

it("removes a gone process's staging once nothing has written to it for a while, and nothing else", async () => {
  const gone = staged(await deadPid(), LEFTOVER_QUIET_MS + 60_000);
  const goneRecently = staged(await deadPid(), 60_000);
  // A running process's uploads are its own to remove (this one's, here).
  const live = staged(process.pid, LEFTOVER_QUIET_MS + 60_000);
  const other = join(root, 'mailguard-lists-123');
  mkdirSync(other);

  expect(await removeLeftoverStaging(root)).toBe(1);

  expect(existsSync(gone)).toBe(false);
  expect(readdirSync(root).sort()).toEqual(
    [goneRecently, live, other].map((path) => path.slice(root.length + 1)).sort(),
  );
  expect(await removeLeftoverStaging(root)).toBe(0);
});

it('counts the newest write inside a folder, not the folder alone', async () => {
  const dir = staged(await deadPid(), LEFTOVER_QUIET_MS + 60_000);
  writeFileSync(join(dir, 'upload-abc', 'list.csv'), 'still arriving');
  expect(await removeLeftoverStaging(root)).toBe(0);
  expect(existsSync(dir)).toBe(true);
});
