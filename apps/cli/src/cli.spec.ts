import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { startLab, type Lab } from '../../../test/lab';
import { loadScenario } from '../../../test/lab/scenario';

const run = promisify(execFile);
const BIN = resolve(__dirname, '../../../bin/mailguard.js');
let lab: Lab;

beforeAll(async () => {
  lab = await startLab(loadScenario());
});

afterAll(() => lab.stop());

describe('npx mailguard verify', () => {
  it('prints one JSON array of results in input order, honouring the API.md §8 variables', async () => {
    const emails = ['nobody@acme.test', 'john.doe@acme.test', 'not-an-address', 'x@nullmx.test'];
    const { stdout } = await run(process.execPath, [BIN, 'verify', ...emails, '--json'], {
      env: { PATH: process.env.PATH ?? '', ...lab.env, SMTP_HELO_NAME: 'cli.mailguard.test' },
    });
    const results = JSON.parse(stdout) as Array<{ email: string; reason: string }>;
    expect(results.map((r) => [r.email, r.reason])).toEqual([
      ['nobody@acme.test', 'rejected_email'],
      ['john.doe@acme.test', 'accepted_email'],
      ['not-an-address', 'invalid_syntax'],
      ['x@nullmx.test', 'no_mx'],
    ]);
    expect(lab.stats('mx1.acme.test').commands).toContain('EHLO cli.mailguard.test');
  });

  it('prints a line per address without --json', async () => {
    const { stdout } = await run(process.execPath, [BIN, 'verify', 'jane@acme.test'], { env: { PATH: process.env.PATH ?? '', ...lab.env } });
    expect(stdout.trim()).toMatch(/^jane@acme\.test {2}valid {2}accepted_email {2}score \d+$/);
  });

  it('refuses bad usage and bad configuration with exit code 2', async () => {
    await expect(run(process.execPath, [BIN, 'verify'])).rejects.toMatchObject({ code: 2 });
    await expect(run(process.execPath, [BIN, 'frobnicate'])).rejects.toMatchObject({ code: 2 });
    await expect(run(process.execPath, [BIN, 'verify', 'a@b.test'], { env: { PATH: process.env.PATH ?? '', DNS_SERVERS: 'nonsense' } })).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('DNS_SERVERS'),
    });
  });
});
