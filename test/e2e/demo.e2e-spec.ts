import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { DIST } from '../support/processes';

/**
 * `npm run demo` as a newcomer meets it: the lines it prints, pasted into another shell, return
 * results; Ctrl-C stops the service and the lab and leaves nothing behind.
 */
jest.setTimeout(120_000);

const run = promisify(execFile);

it('prints three curl lines that answer as printed, and cleans up at Ctrl-C', async () => {
  const demo = spawn(process.execPath, [join(DIST, 'test/lab/demo.js')], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((done) => demo.once('exit', (code) => done(code)));
  let printed = '';
  let errors = '';
  demo.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  try {
    await new Promise<void>((ready, fail) => {
      demo.stdout.on('data', (chunk: Buffer) => {
        printed += chunk.toString();
        if (printed.includes('Ctrl-C stops')) ready();
      });
      void exited.then((code) => fail(new Error(`the demo exited (${code}):\n${printed}${errors}`)));
    });
    const lines = printed.split('\n').filter((line) => line.trimStart().startsWith('curl '));
    expect(lines).toHaveLength(3);
    const answers = await Promise.all(
      lines.map(async (line) => JSON.parse((await run('bash', ['-c', line])).stdout) as Record<string, unknown>),
    );
    expect(answers[0]).toMatchObject({ email: 'john.doe@acme.test', status: 'valid' });
    expect(answers[1]).toMatchObject({ email: 'nobody@acme.test', status: 'invalid', reason: 'rejected_email' });
    expect(answers[2]).toMatchObject({
      results: [
        { email: 'temp@mailinator.com', isDisposable: true },
        { email: 'info@catchall.test', status: 'risky' },
      ],
    });
    expect(printed).toMatch(/Dashboard: http:\/\/127\.0\.0\.1:\d+\/dashboard\//);
  } finally {
    demo.kill('SIGINT');
  }
  expect(await exited).toBe(0);
  const log = /Service log: (\S+)/.exec(printed)?.[1];
  expect(log && existsSync(dirname(log))).toBe(false);
});
