import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { renderOverlay } from '../deploy/k8s-validate';
import {
  alertsOf,
  dashboardQueries,
  EXTERNAL_METRICS,
  exportedNames,
  metricNames,
  readDashboard,
} from '../deploy/promql';
import { startLab, type Lab } from '../lab';
import { DEFAULT_SCENARIO } from '../lab/scenario';
import { apiClient } from '../support/api-client';
import { E2E_CLUSTER_ENV } from '../support/cluster-env';
import { startGatewayProcess, startWorkerProcess, type RunningProcess } from '../support/processes';
import { createTestDatabase, flushRedisPrefix, TEST_REDIS_URL, type TestDatabase } from '../support/services';

jest.setTimeout(60_000);

/**
 * The dashboard and the alerts against what the code exports, read from /metrics of a running gateway (in-process
 * pipeline, so it registers every family a worker would: they share one Metrics class).
 */
const root = resolve(__dirname, '../..');

async function scrape(url: string): Promise<string> {
  const response = await fetch(`${url}/metrics`);
  expect(response.status).toBe(200);
  return response.text();
}

/** A check of an address the lab's server rejects, seen in the /metrics of the process that concluded it. */
async function countsACheck(gatewayUrl: string, metricsUrl: string, service: string): Promise<void> {
  const api = apiClient(gatewayUrl);
  const signup = await api<{ apiKey: string }>('POST', '/v1/accounts', { body: { email: 'owner@catchall.test' } });
  expect(signup.status).toBe(201);
  const series = new RegExp(
    `^mailguard_checks_total\\{status="invalid",sub_status="no_such_user",service="${service}"\\} (\\d+)$`,
    'm',
  );
  const before = Number(series.exec(await scrape(metricsUrl))?.[1] ?? 0);
  const check = await api<{ status: string; subStatus: string }>('GET', '/v1/email-validation/nobody@acme.test', {
    key: signup.body.apiKey,
  });
  expect([check.status, check.body.status, check.body.subStatus]).toEqual([200, 'invalid', 'no_such_user']);
  expect(Number(series.exec(await scrape(metricsUrl))?.[1])).toBe(before + 1);
}

describe('monitoring queries against a running gateway', () => {
  let lab: Lab;
  let database: TestDatabase;
  let gateway: RunningProcess;
  let cwd: string;

  beforeAll(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'mailguard-e2e-'));
    [lab, database] = await Promise.all([startLab(DEFAULT_SCENARIO), createTestDatabase()]);
    gateway = await startGatewayProcess(
      { ...lab.env, DATABASE_URL: database.url, SMTP_HELO_NAME: E2E_CLUSTER_ENV.SMTP_HELO_NAME },
      cwd,
    );
  });

  afterAll(async () => {
    await gateway?.stop();
    await Promise.all([lab?.stop(), database?.drop()]);
    rmSync(cwd, { recursive: true, force: true });
  });

  it('names in every dashboard panel and every alert only metrics the processes export', async () => {
    const exported = exportedNames(await scrape(gateway.url));
    const queries = [
      ...dashboardQueries(readDashboard(root)),
      ...alertsOf(renderOverlay(root, 'prod')).map(({ alert, expr }) => ({ where: `alert ${alert}`, expr })),
    ];
    expect(queries.length).toBeGreaterThan(20);
    const unknown = queries.flatMap(({ where, expr }) =>
      metricNames(expr)
        .filter((name) => !exported.has(name) && !EXTERNAL_METRICS.has(name))
        .map((name) => `${where}: ${name}`),
    );
    expect(unknown).toEqual([]);
  });

  it('counts a concluded check in mailguard_checks_total by status and sub_status', () =>
    countsACheck(gateway.url, gateway.url, 'gateway'));
});

describe('mailguard_checks_total with the checks on workers', () => {
  const prefix = `mgmon:${randomBytes(6).toString('hex')}:`;
  let lab: Lab;
  let database: TestDatabase;
  const processes: RunningProcess[] = [];
  const dirs: string[] = [];
  const workDir = () => dirs[dirs.push(mkdtempSync(join(tmpdir(), 'mailguard-e2e-'))) - 1];

  afterAll(async () => {
    await Promise.all(processes.map((process) => process.stop()));
    await Promise.all([lab?.stop(), database?.drop(), flushRedisPrefix(prefix)]);
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('is counted by the scoring-worker', async () => {
    [lab, database] = await Promise.all([startLab(DEFAULT_SCENARIO), createTestDatabase()]);
    const env = {
      ...lab.env,
      DATABASE_URL: database.url,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: prefix,
      SMTP_HELO_NAME: E2E_CLUSTER_ENV.SMTP_HELO_NAME,
    };
    processes.push(
      ...(await Promise.all([
        startGatewayProcess(env, workDir()),
        startWorkerProcess('dns-worker', env, workDir()),
        startWorkerProcess('smtp-worker', env, workDir()),
        startWorkerProcess('scoring-worker', env, workDir()),
      ])),
    );
    const [gateway, , , scoring] = processes;
    await countsACheck(gateway.url, scoring.url, 'scoring-worker');
  });
});
