import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runWorkerToExit, WORKER_KINDS } from '../support/processes';
import { TEST_REDIS_URL } from '../support/services';

/** A worker refuses to start on bad configuration: one line on stderr naming the problem, exit code 1. */
jest.setTimeout(30_000);

const workDir = () => mkdtempSync(join(tmpdir(), 'mailguard-worker-config-'));

describe.each(WORKER_KINDS)('%s with bad configuration', (kind) => {
  it.each([
    [
      'WORKER_CONCURRENCY=abc',
      { REDIS_URL: TEST_REDIS_URL, WORKER_CONCURRENCY: 'abc' },
      /WORKER_CONCURRENCY must be an integer/,
    ],
    ['no REDIS_URL', {}, /REDIS_URL is required/],
  ])('exits 1 with one line on stderr for %s', async (_name, env, message) => {
    const result = await runWorkerToExit(kind, env, workDir());
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^mailguard ${kind}: `));
    expect(lines[0]).toMatch(message);
    expect(result.stdout).not.toMatch(/working on queue/);
  });
});
