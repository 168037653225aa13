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

async function scrape(page: string): Promise<string> {
  const response = await fetch(page);
  expect(response.status).toBe(200);
  return response.text();
}

/** A check of an address the lab's server rejects, seen in the /metrics of the process that concluded it. */
async function countsACheck(gatewayUrl: string, metricsPage: string, service: string): Promise<void> {
  const api = apiClient(gatewayUrl);
  const signup = await api<{ apiKey: string }>('POST', '/v1/accounts', { body: { email: 'owner@catchall.test' } });
  expect(signup.status).toBe(201);
  const series = new RegExp(
    `^mailguard_checks_total\\{status="invalid",sub_status="no_such_user",service="${service}"\\} (\\d+)$`,
    'm',
  );
  const before = Number(series.exec(await scrape(metricsPage))?.[1] ?? 0);
  const check = await api<{ status: string; subStatus: string }>('GET', '/v1/email-validation/nobody@acme.test', {
    key: signup.body.apiKey,
  });
  expect([check.status, check.body.status, check.body.subStatus]).toEqual([200, 'invalid', 'no_such_user']);
  expect(Number(series.exec(await scrape(metricsPage))?.[1])).toBe(before + 1);
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
    const exported = exportedNames(await scrape(gateway.metrics));
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
    countsACheck(gateway.url, gateway.metrics, 'gateway'));

  it('serves the metrics on METRICS_PORT only: the public API port answers 404 there', async () => {
    expect(new URL(gateway.metrics).port).not.toBe(new URL(gateway.url).port);
    const onApi = await fetch(`${gateway.url}/metrics`);
    expect([onApi.status, await onApi.json()]).toEqual([
      404,
      { error: 'No route for GET /metrics', code: 'not_found' },
    ]);
    const elsewhere = await fetch(new URL('/health/ready', gateway.metrics));
    expect([elsewhere.status, await elsewhere.json()]).toEqual([
      404,
      { error: 'No route for GET /health/ready', code: 'not_found' },
    ]);
  });

  it('serves them on the API port too, to METRICS_TOKEN as a bearer token only, when it is set', async () => {
    const token = 'metrics-token-for-e2e-0123';
    const guarded = await startGatewayProcess(
      { ...lab.env, DATABASE_URL: database.url, SMTP_HELO_NAME: E2E_CLUSTER_ENV.SMTP_HELO_NAME, METRICS_TOKEN: token },
      cwd,
    );
    try {
      const refused: Array<Record<string, string>> = [
        {},
        { authorization: 'Bearer metrics-token-for-e2e-0124' },
        { authorization: `Basic ${Buffer.from(`prometheus:${token}`).toString('base64')}` },
      ];
      for (const headers of refused) {
        const response = await fetch(`${guarded.url}/metrics`, { headers });
        expect([response.status, ((await response.json()) as { code: string }).code]).toEqual([401, 'unauthorized']);
      }
      // A token in the URL would be a credential in every proxy's log: not taken.
      expect((await fetch(`${guarded.url}/metrics?token=${token}`)).status).toBe(401);
      const text = await (
        await fetch(`${guarded.url}/metrics`, { headers: { authorization: `Bearer ${token}` } })
      ).text();
      expect(exportedNames(text)).toContain('mailguard_http_requests_total');
      // The metrics port needs no token: it is not public.
      expect((await fetch(guarded.metrics)).status).toBe(200);
    } finally {
      await guarded.stop();
    }
  });
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
    await countsACheck(gateway.url, scoring.metrics, 'scoring-worker');
  });
});
