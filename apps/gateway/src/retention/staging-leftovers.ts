import { readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STAGING_PREFIX } from '../lists/upload';

/**
 * How long a leftover must have gone unwritten before it goes: an upload's whole life is far
 * shorter, so a folder still written to belongs to a live upload even when its process is not
 * visible from here (another PID namespace sharing the folder).
 */
export const LEFTOVER_QUIET_MS = 60 * 60 * 1000;

/** Whether a process of that id runs on this host (EPERM: it does, as another user). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The newest modification time in a folder tree. */
async function lastWritten(path: string): Promise<number> {
  const info = await stat(path);
  if (!info.isDirectory()) return info.mtimeMs;
  let newest = info.mtimeMs;
  for (const entry of await readdir(path)) newest = Math.max(newest, await lastWritten(join(path, entry)));
  return newest;
}

/**
 * Removes the staging folders of gateways that stopped in the middle of an upload (killed, out of
 * memory): a running gateway removes each upload it stages, on every path, but a process that is
 * gone cannot. Returns how many folders went. Folders vanishing meanwhile are skipped.
 */
export async function removeLeftoverStaging(root = tmpdir(), now = Date.now()): Promise<number> {
  let removed = 0;
  for (const entry of await readdir(root, { withFileTypes: true })) {
    const pid = entry.name.startsWith(STAGING_PREFIX) ? Number(entry.name.slice(STAGING_PREFIX.length)) : NaN;
    if (!entry.isDirectory() || !Number.isInteger(pid) || pid <= 0 || running(pid)) continue;
    const dir = join(root, entry.name);
    const written = await lastWritten(dir).catch(() => now);
    if (now - written < LEFTOVER_QUIET_MS) continue;
    await rm(dir, { recursive: true, force: true });
    removed++;
  }
  return removed;
}
