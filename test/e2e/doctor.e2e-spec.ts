import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import type { DoctorReport } from '@mailguard/prober';
import { startLab, type Lab } from '../lab';
import type { Scenario } from '../lab/scenario';

/**
 * `mailguard doctor` (the prober's self-check) against a lab that plays the internet's side: one
 * egress per way a prober is refused, each with the status and the fix a real operator would need,
 * and a well-set egress that passes. The egresses are source addresses on loopback.
 */
jest.setTimeout(60_000);

const BIN = resolve(__dirname, '../../bin/mailguard.js');
const NET = '127.250.2';
const EGRESS = {
  good: `${NET}.1`,
  noPtr: `${NET}.2`,
  ptrElsewhere: `${NET}.3`,
  heloElsewhere: `${NET}.4`,
  spfFail: `${NET}.5`,
  listed: `${NET}.6`,
  port25Blocked: `${NET}.7`,
  proxyExit: `${NET}.8`,
};
const HELO = 'out.prober.test';
const CANARY = 'mx.canary.prober.test';

const scenario: Scenario = {
  servers: {
    // Silent to one egress: its connections are accepted and never greeted, as a port 25 filter looks.
    [CANARY]: { tls: 'none', clients: { [EGRESS.port25Blocked]: { silent: true } } },
  },
  ptr: {
    [EGRESS.good]: HELO,
    [EGRESS.ptrElsewhere]: 'stray.prober.test',
    [EGRESS.heloElsewhere]: 'out4.prober.test',
    [EGRESS.spfFail]: HELO,
    [EGRESS.listed]: HELO,
    [EGRESS.port25Blocked]: HELO,
    [EGRESS.proxyExit]: HELO,
  },
  whoami: ['whoami.prober.test'],
  domains: {
    'prober.test': {
      mx: [{ host: CANARY, priority: 10 }],
      txt: [
        `v=spf1 ip4:${EGRESS.good} ip4:${NET}.2/31 ip4:${EGRESS.heloElsewhere} ip4:${EGRESS.listed} ip4:${EGRESS.port25Blocked} ip4:${EGRESS.proxyExit} ip4:127.0.0.1 -all`,
      ],
      records: {
        out: {
          a: [
            EGRESS.good,
            EGRESS.spfFail,
            EGRESS.listed,
            EGRESS.port25Blocked,
            EGRESS.proxyExit,
            EGRESS.noPtr,
            '127.0.0.1',
          ],
        },
        stray: { a: [`${NET}.99`] },
        out4: { a: [EGRESS.heloElsewhere] },
      },
    },
    'zen.dnsbl.test': {
      records: {
        [EGRESS.listed.split('.').reverse().join('.')]: {
          a: ['127.0.0.2'],
          txt: [`Listed by the lab: see https://dnsbl.test/query/${EGRESS.listed}`],
        },
      },
    },
    // Refuses every query, as Spamhaus answers queries that come through public resolvers.
    'refusing.dnsbl.test': { records: { '*': { a: ['127.255.255.254'] } } },
  },
};

let lab: Lab;

beforeAll(async () => {
  lab = await startLab(scenario, { socksOutboundAddress: EGRESS.proxyExit });
});
afterAll(() => lab.stop());

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

function doctor(args: string[], extra: Record<string, string>): Promise<Outcome> {
  const env = {
    PATH: process.env.PATH ?? '',
    ...lab.env,
    SMTP_HELO_NAME: HELO,
    SMTP_MAIL_FROM: 'bounces@prober.test',
    PROBER_CANARIES: CANARY,
    DNSBL_ZONES: 'zen.dnsbl.test',
    ...extra,
  };
  const child = spawn(process.execPath, [BIN, 'doctor', ...args], { env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((done) => child.once('close', (code) => done({ code, stdout, stderr })));
}

async function report(extra: Record<string, string>): Promise<{ code: number | null; report: DoctorReport }> {
  const outcome = await doctor(['--json'], extra);
  expect(outcome.stderr).toBe('');
  return { code: outcome.code, report: JSON.parse(outcome.stdout) as DoctorReport };
}

function checkOf(report: DoctorReport, egress: string, name: string) {
  const found = report.egress.find((entry) => entry.id === egress)?.checks.find((check) => check.name === name);
  if (!found) throw new Error(`no ${name} check for ${egress} in ${JSON.stringify(report)}`);
  return found;
}

it('passes on a well-set egress, and exits 0', async () => {
  const { code, report: passed } = await report({ SMTP_EGRESS: `local:${EGRESS.good}` });
  expect(code).toBe(0);
  expect(passed.ok).toBe(true);
  expect(passed.egress).toHaveLength(1);
  expect(passed.egress[0]).toMatchObject({ id: `local:${EGRESS.good}`, publicIp: EGRESS.good });
  expect(passed.egress[0].checks.map((check) => [check.name, check.status])).toEqual([
    ['port25', 'pass'],
    ['public_ip', 'pass'],
    ['ptr', 'pass'],
    ['fcrdns', 'pass'],
    ['helo', 'pass'],
    ['spf', 'pass'],
    ['dnsbl:zen.dnsbl.test', 'pass'],
  ]);
  expect(passed.egress[0].checks.every((check) => check.fix === null)).toBe(true);
  // The canary was greeted from the egress's own address.
  expect(lab.stats(CANARY).byClient[EGRESS.good]?.sessions).toBeGreaterThan(0);
});

it('names each way an egress is refused, with what to do, and exits 1', async () => {
  const egresses = Object.values(EGRESS).filter((address) => address !== EGRESS.proxyExit);
  const { code, report: found } = await report({
    SMTP_EGRESS: egresses.map((address) => `local:${address}`).join(','),
    DNSBL_ZONES: 'zen.dnsbl.test,refusing.dnsbl.test',
  });
  expect(code).toBe(1);
  expect(found.ok).toBe(false);
  const id = (address: string) => `local:${address}`;

  expect(checkOf(found, id(EGRESS.port25Blocked), 'port25')).toMatchObject({
    status: 'fail',
    fix: expect.stringContaining('port 25 blocked?'),
  });
  expect(checkOf(found, id(EGRESS.good), 'port25').status).toBe('pass');

  expect(checkOf(found, id(EGRESS.noPtr), 'ptr')).toMatchObject({
    status: 'fail',
    detail: expect.stringContaining('has no PTR record'),
    fix: `set the PTR of ${EGRESS.noPtr} to ${HELO} (with whoever owns the address: your cloud or ISP)`,
  });
  expect(checkOf(found, id(EGRESS.noPtr), 'fcrdns').status).toBe('skipped');

  expect(checkOf(found, id(EGRESS.ptrElsewhere), 'fcrdns')).toMatchObject({
    status: 'fail',
    detail: expect.stringContaining(`stray.prober.test → ${NET}.99`),
    fix: `add an A record stray.prober.test → ${EGRESS.ptrElsewhere}, or set the PTR of ${EGRESS.ptrElsewhere} to a name that resolves to it`,
  });

  expect(checkOf(found, id(EGRESS.heloElsewhere), 'helo')).toMatchObject({
    status: 'fail',
    fix: `add an A record ${HELO} → ${EGRESS.heloElsewhere}, or set SMTP_HELO_NAME=out4.prober.test (the PTR name)`,
  });
  expect(checkOf(found, id(EGRESS.good), 'helo').status).toBe('pass');

  expect(checkOf(found, id(EGRESS.spfFail), 'spf')).toMatchObject({
    status: 'fail',
    detail: expect.stringContaining('does not permit'),
    fix: `add ip4:${EGRESS.spfFail} to the SPF record of prober.test, before its "all"`,
  });
  expect(checkOf(found, id(EGRESS.good), 'spf').status).toBe('pass');

  expect(checkOf(found, id(EGRESS.listed), 'dnsbl:zen.dnsbl.test')).toMatchObject({
    status: 'fail',
    detail: expect.stringContaining(`Listed by the lab: see https://dnsbl.test/query/${EGRESS.listed}`),
    fix: expect.stringContaining('delist'),
  });
  expect(checkOf(found, id(EGRESS.good), 'dnsbl:zen.dnsbl.test').status).toBe('pass');

  // A list that refuses the query is "cannot tell", never "listed".
  for (const address of egresses)
    expect(checkOf(found, id(address), 'dnsbl:refusing.dnsbl.test')).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining('cannot tell'),
      fix: expect.stringContaining('resolver of your own'),
    });

  // Every failing or warning check says what to do; the others say nothing.
  for (const egress of found.egress)
    for (const check of egress.checks)
      expect({ ...check, fix: check.fix !== null }).toEqual({
        ...check,
        fix: check.status === 'fail' || check.status === 'warn',
      });
});

it('asks a resolver for the public address of an egress that does not know it: the host route, and a SOCKS5 proxy', async () => {
  const lookup = `whoami.prober.test@${lab.dns.host}:${lab.dns.port}`;
  const direct = await report({ PUBLIC_IP_LOOKUP: lookup });
  expect(direct.report.egress[0]).toMatchObject({ id: 'default', publicIp: '127.0.0.1' });
  expect(checkOf(direct.report, 'default', 'public_ip').detail).toContain(`as ${lookup.split(':')[0]}`);

  const proxied = await report({ PUBLIC_IP_LOOKUP: lookup, SMTP_EGRESS: lab.socks.url });
  expect(proxied.report.egress[0]).toMatchObject({
    id: `socks5://${lab.socks.host}:${lab.socks.port}`,
    publicIp: EGRESS.proxyExit,
  });
  expect(checkOf(proxied.report, proxied.report.egress[0].id, 'port25').status).toBe('pass');
  expect(proxied.code).toBe(0);
});

it('prints a report an operator reads in one screen', async () => {
  const outcome = await doctor([], { SMTP_EGRESS: `local:${EGRESS.noPtr}` });
  expect(outcome.code).toBe(1);
  expect(outcome.stdout).toContain(`egress local:${EGRESS.noPtr} (public address ${EGRESS.noPtr})`);
  expect(outcome.stdout).toMatch(/FAIL {2}ptr +127\.250\.2\.2 has no PTR record/);
  expect(outcome.stdout).toContain(`fix: set the PTR of ${EGRESS.noPtr} to ${HELO}`);
  expect(outcome.stdout).toMatch(/Not ready: 1 check failed/);
  expect(outcome.stdout.split('\n').length).toBeLessThan(25);
});

it('refuses bad usage and bad configuration with status 2', async () => {
  expect((await doctor(['--jsn'], {})).code).toBe(2);
  const bad = await doctor([], { SMTP_EGRESS: 'eth0' });
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain('SMTP_EGRESS');
});
