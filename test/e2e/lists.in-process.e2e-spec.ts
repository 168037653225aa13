import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLab, type Lab } from '../lab';
import { loadScenario } from '../lab/scenario';
import { apiClient } from '../support/api-client';
import { E2E_CLUSTER_ENV } from '../support/cluster-env';
import { startGatewayProcess } from '../support/processes';
import { createTestDatabase, type TestDatabase } from '../support/services';

/**
 * Bulk lists in one process (no REDIS_URL: the in-process driver), and a gateway restart in the
 * middle of a list: the new process takes the list up again from Postgres.
 */
jest.setTimeout(120_000);

let lab: Lab;
let database: TestDatabase;

beforeAll(async () => {
  const scenario = loadScenario();
  scenario.domains!['stubborn.test'] = {
    mx: [{ host: 'mx1.acme.test', priority: 10 }],
    mailboxes: { later: '451 4.7.1 Greylisted, please try again later' },
  };
  lab = await startLab(scenario);
  database = await createTestDatabase();
});

afterAll(async () => {
  await lab?.stop();
  await database?.drop();
});

it('finishes a list after the gateway restarts in the middle of it', async () => {
  const env = {
    ...lab.env,
    DATABASE_URL: database.url,
    SMTP_HELO_NAME: E2E_CLUSTER_ENV.SMTP_HELO_NAME,
    GREYLIST_RETRY_SECONDS: '2',
  };
  const first = await startGatewayProcess(env, mkdtempSync(join(tmpdir(), 'mailguard-lists-')));
  const api = apiClient(first.url);
  const signup = await api<{ apiKey: string; account: { credits: number } }>('POST', '/v1/accounts', {
    body: { email: 'owner@catchall.test' },
  });
  const form = new FormData();
  // The greylisted row keeps the list running across the restart (its retry waits 2 s in memory).
  form.append('file', new Blob(['email\nlater@stubborn.test\njohn.doe@acme.test\nnobody@acme.test\n']), 'restart.csv');
  const upload = await fetch(`${first.url}/v1/lists`, {
    method: 'POST',
    headers: { 'X-API-Key': signup.body.apiKey },
    body: form,
  });
  expect(upload.status).toBe(202);
  const { id } = (await upload.json()) as { id: string };
  // Stop once the list is under way: the greylisted row's retry then lives only in that process.
  while ((await api<{ processed: number }>('GET', `/v1/lists/${id}`, { key: signup.body.apiKey })).body.processed < 2)
    await new Promise((resolve) => setTimeout(resolve, 100));
  expect(await first.stop()).toBe(0);

  const second = await startGatewayProcess(env, mkdtempSync(join(tmpdir(), 'mailguard-lists-')));
  try {
    const again = apiClient(second.url);
    let list: { status: string; processed: number; creditsCharged: number; counts: Record<string, number> };
    do {
      await new Promise((resolve) => setTimeout(resolve, 200));
      list = (await again<typeof list>('GET', `/v1/lists/${id}`, { key: signup.body.apiKey })).body;
    } while (list.status === 'queued' || list.status === 'processing');
    expect(list).toMatchObject({
      status: 'completed',
      processed: 3,
      creditsCharged: 2,
      counts: { valid: 1, risky: 1, invalid: 1 },
    });
    const rows = await again<{ data: Array<{ email: string; result: { reason: string } }> }>(
      'GET',
      `/v1/lists/${id}/results`,
      { key: signup.body.apiKey },
    );
    expect(rows.body.data.map((row) => row.result.reason)).toEqual(['unknown', 'accepted_email', 'rejected_email']);
    expect((await again('GET', '/v1/credits', { key: signup.body.apiKey })).body).toMatchObject({
      balance: signup.body.account.credits - 2,
      held: 0,
    });
  } finally {
    await second.stop();
  }
});
