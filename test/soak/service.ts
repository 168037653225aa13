import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import type { ProberReadiness } from '@mailguard/prober';
import type { Lab } from '../lab';
import { startGatewayProcess, startWorkerProcess, WORKER_KINDS, type RunningProcess } from '../support/processes';
import { createTestDatabase, flushRedisPrefix, TEST_REDIS_URL, type TestDatabase } from '../support/services';
import { SOAK_SETTINGS } from './world';

export type Driver = 'in-process' | 'bullmq';
export const DRIVERS: Driver[] = ['in-process', 'bullmq'];

/** One running MailGuard process and how far the soak has read its output. */
export interface ServiceProcess {
  name: string;
  process: RunningProcess;
  /** Output already scanned for errors. */
  scanned: number;
}

/** Sum of every sample of a Prometheus metric (all label sets; 0 for a declared family without any), or null when the process does not expose it. */
export function metricSum(text: string, name: string): number | null {
  let sum: number | null = text.includes(`\n# TYPE ${name} `) ? 0 : null;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name) || (line[name.length] !== ' ' && line[name.length] !== '{')) continue;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (Number.isFinite(value)) sum = (sum ?? 0) + value;
  }
  return sum;
}

/**
 * ONE long-lived MailGuard for a whole soak: the gateway alone (in-process queues, no REDIS_URL)
 * or the gateway and the four workers as processes over BullMQ, on a fresh database.
 */
export class SoakService {
  private constructor(
    readonly driver: Driver,
    readonly database: TestDatabase,
    readonly processes: ServiceProcess[],
    /** Set in BullMQ mode: the Redis key prefix of this service. */
    readonly redisPrefix: string | null,
  ) {}

  static async start(driver: Driver, lab: Lab): Promise<SoakService> {
    const database = await createTestDatabase();
    const redisPrefix = driver === 'bullmq' ? `mgsoak:${randomBytes(6).toString('hex')}:` : null;
    const env = {
      ...lab.env,
      ...SOAK_SETTINGS,
      DATABASE_URL: database.url,
      ...(redisPrefix ? { REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: redisPrefix } : {}),
    };
    const cwd = () => mkdtempSync(join(tmpdir(), 'mailguard-soak-'));
    const processes: ServiceProcess[] = [];
    const service = new SoakService(driver, database, processes, redisPrefix);
    try {
      const gateway = await startGatewayProcess(env, cwd());
      processes.push({ name: 'gateway', process: gateway, scanned: 0 });
      if (redisPrefix) {
        const workers = await Promise.all(WORKER_KINDS.map((kind) => startWorkerProcess(kind, env, cwd())));
        workers.forEach((worker, index) => processes.push({ name: WORKER_KINDS[index], process: worker, scanned: 0 }));
      }
    } catch (error) {
      await service.stop();
      throw error;
    }
    return service;
  }

  get url(): string {
    return this.processes[0].process.url;
  }

  async metrics(entry: ServiceProcess): Promise<string> {
    const response = await fetch(entry.process.metrics);
    if (response.status !== 200) throw new Error(`${entry.name} /metrics answered ${response.status}`);
    return response.text();
  }

  /**
   * A gate metric summed over hosts and over every process that has a gate (the gateway in one
   * process; the smtp-workers, and the gateway for finder and insight, over BullMQ); null when no
   * process exposes it.
   */
  async gateSum(name: 'mailguard_mx_slots_held' | 'mailguard_mx_lease_expired_total'): Promise<number | null> {
    let sum: number | null = null;
    for (const entry of this.processes) {
      const value = metricSum(await this.metrics(entry), name);
      if (value !== null) sum = (sum ?? 0) + value;
    }
    return sum;
  }

  /** Readiness's `prober` section, from the gateway (over BullMQ: the blocks every prober shares through Redis). */
  async prober(): Promise<ProberReadiness> {
    const response = await fetch(`${this.url}/health/ready`);
    const body = (await response.json()) as { prober?: ProberReadiness };
    if (response.status !== 200 || !body.prober)
      throw new Error(`/health/ready answered ${response.status} without a prober section: ${JSON.stringify(body)}`);
    return body.prober;
  }

  /** BullMQ mode: leases still in the Redis gate's sorted sets (`mx:slots:<host>`), by host. */
  async redisLeases(): Promise<Record<string, number>> {
    if (!this.redisPrefix) return {};
    const redis = new Redis(TEST_REDIS_URL);
    const leases: Record<string, number> = {};
    try {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${this.redisPrefix}mx:slots:*`, 'COUNT', 1000);
        cursor = next;
        for (const key of keys) {
          const count = await redis.zcard(key);
          if (count > 0) leases[key.slice(`${this.redisPrefix}mx:slots:`.length)] = count;
        }
      } while (cursor !== '0');
    } finally {
      redis.disconnect();
    }
    return leases;
  }

  /**
   * What each process wrote since the last call that a healthy service never writes: error-level
   * (or worse) JSON lines, unhandled rejections and uncaught exceptions, and the process's exit;
   * and how many warnings were logged (a figure, not a failure: a blocked or busy MX is warned of).
   */
  scanOutput(): { problems: string[]; warnings: number } {
    const found: string[] = [];
    let warnings = 0;
    for (const entry of this.processes) {
      const { child } = entry.process;
      if (child.exitCode !== null || child.signalCode !== null)
        found.push(`${entry.name} exited (${child.exitCode ?? child.signalCode})`);
      const output = entry.process.output();
      const fresh = output.slice(entry.scanned);
      // Only whole lines: the rest is read next time.
      const end = fresh.lastIndexOf('\n') + 1;
      entry.scanned += end;
      for (const line of fresh.slice(0, end).split('\n')) {
        if (!line.trim()) continue;
        let level = 0;
        try {
          level = Number((JSON.parse(line) as { level?: unknown }).level) || 0;
        } catch {
          // Not a pino line (Node's own warnings, a crash's stack): judged by its words alone.
        }
        if (level >= 50 || /unhandled|uncaught/i.test(line)) found.push(`${entry.name}: ${line.slice(0, 600)}`);
        else if (level === 40) warnings++;
      }
    }
    return { problems: found, warnings };
  }

  async stop(): Promise<void> {
    await Promise.all(this.processes.map((entry) => entry.process.stop()));
    await this.database.drop();
    if (this.redisPrefix) await flushRedisPrefix(this.redisPrefix);
  }
}
