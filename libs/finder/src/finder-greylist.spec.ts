import { loadConfig } from '@mailguard/config';
import { createEngine } from '@mailguard/engine';
import { startLab, type Lab } from '../../../test/lab';
import { findAddress } from './finder';

/**
 * A server that greylists says "come back later", not "nobody": the finder asks again after
 * GREYLIST_RETRY_SECONDS when that fits in the deadline, as a single check does (the lab's real sockets).
 */
let lab: Lab;

beforeAll(async () => {
  lab = await startLab({
    servers: { 'mx.grey.test': { greylistMs: 300 } },
    domains: { 'grey.test': { mx: [{ host: 'mx.grey.test', priority: 10 }], mailboxes: { 'john.doe': 'ok' } } },
  });
});
afterAll(() => lab.stop());

it('finds a person at a greylisting domain by asking again once the greylisting has passed', async () => {
  const engine = createEngine(loadConfig({ ...lab.env, SMTP_HELO_NAME: 'finder.mailguard.test', GREYLIST_RETRY_SECONDS: '1', CHECK_DEADLINE_MS: '6000' }));
  const answer = await findAddress(engine, { first: 'john', last: ['doe'] }, 'grey.test');
  expect(answer.email).toBe('john.doe@grey.test');
  expect(lab.stats('mx.grey.test').sessions).toBe(2);
});

it('answers nobody found, without waiting, when the retry would not fit in the deadline', async () => {
  const engine = createEngine(loadConfig({ ...lab.env, SMTP_HELO_NAME: 'finder2.mailguard.test', GREYLIST_RETRY_SECONDS: '30', CHECK_DEADLINE_MS: '6000' }));
  const answer = await findAddress(engine, { first: 'john', last: ['doe'] }, 'grey.test');
  expect(answer.email).toBeNull();
});
