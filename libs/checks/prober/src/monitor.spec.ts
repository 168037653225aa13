import { loadConfig } from '@mailguard/config';
import { buildEgress, EgressPool, MemoryEgressBlocks } from '@mailguard/smtp';
import { startLab, type Lab } from '../../../../test/lab';
import { selfCheck } from './doctor';
import { MemoryReportStore, ProberMonitor } from './monitor';
import type { DoctorReport } from './report';

/**
 * The self-check's schedule and what it holds (a timer; sockets while it runs), on the lab's real
 * sockets: stopping it lets go of both, on every path.
 */
let lab: Lab;

beforeAll(async () => {
  lab = await startLab({
    servers: { 'mx.canary.test': { tls: 'none' }, 'mx.silent.test': { tls: 'none', silent: true } },
    domains: { 'canary.test': { mx: [{ host: 'mx.canary.test', priority: 10 }] } },
  });
});
afterAll(() => lab.stop());

function monitor(
  canary: string,
  everyMs: number | null,
  reports: { push(report: DoctorReport): unknown } = [],
): ProberMonitor {
  const config = loadConfig({
    ...lab.env,
    PROBER_CANARIES: canary,
    DNSBL_ZONES: 'zen.dnsbl.test',
    PUBLIC_IP: '127.0.0.1',
  });
  const pool = new EgressPool(config.prober.egress.map(buildEgress), new MemoryEgressBlocks(), 60_000);
  return new ProberMonitor({
    check: (signal) => selfCheck(config, pool.egresses, signal),
    store: new MemoryReportStore(),
    pool,
    everyMs,
    onReport: (report) => reports.push(report),
  });
}

it('checks at start, then every interval, keeps the newest report, and stops for good', async () => {
  const reports: DoctorReport[] = [];
  let second: () => void = () => undefined;
  const twice = new Promise<void>((resolve) => (second = resolve));
  const prober = monitor('mx.canary.test', 50, {
    push: (report: DoctorReport) => (reports.push(report) >= 2 ? second() : undefined),
  });
  prober.start();
  expect(prober.active).toBe(true);
  await twice;
  expect(reports[0].egress[0].checks[0]).toMatchObject({ name: 'port25', status: 'pass' });
  expect((await prober.readiness()).checkedAt).toBe(reports[reports.length - 1].checkedAt);
  prober.stop();
  expect(prober.active).toBe(false);
  const seen = reports.length;
  await new Promise((resolve) => setTimeout(resolve, 150));
  expect(reports.length).toBe(seen);
  prober.start();
  expect(prober.active).toBe(false);
});

it('a check in flight gives up when stopped: its connection closes and nothing is reported', async () => {
  const reports: DoctorReport[] = [];
  const prober = monitor('mx.silent.test', null, reports);
  lab.resetStats();
  prober.start();
  const server = lab.smtp('mx.silent.test');
  while (server.stats.active === 0) await new Promise((resolve) => setTimeout(resolve, 10));
  prober.stop();
  expect(prober.active).toBe(false);
  while (server.stats.active > 0) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(reports).toEqual([]);
  expect((await prober.readiness()).checkedAt).toBeNull();
});

it('runs once when no interval is set, and schedules nothing after', async () => {
  const reports: DoctorReport[] = [];
  const prober = monitor('mx.canary.test', null, reports);
  const report = await prober.runOnce();
  expect(report?.egress[0].publicIp).toBe('127.0.0.1');
  expect(prober.active).toBe(false);
  expect(reports).toHaveLength(1);
  prober.stop();
});
