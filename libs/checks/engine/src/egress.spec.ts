import { loadConfig } from '@mailguard/config';
import { startLab, type Lab } from '../../../../test/lab';
import type { Scenario } from '../../../../test/lab/scenario';
import { createEngine, type VerificationEngine } from './engine';

/**
 * Which egress a probe goes out through, and what the engine learns of the egresses, through the
 * lab's real sockets: the egresses are source addresses on loopback that the lab's servers tell apart.
 */
const A = '127.250.4.1';
const B = '127.250.4.2';

const scenario: Scenario = {
  servers: {
    // Refuses A as a blocklisted sender, at the banner; takes B.
    'mx1.refusing.test': { tls: 'none', clients: { [A]: { blockSender: 'banner' } } },
    // Hangs up on A before a word, as some hosts drop an address they refuse; takes B.
    'mx1.dropping.test': { tls: 'none', clients: { [A]: { hangUp: true } } },
    // Hangs up on everyone: a host that is down, not one that refuses us.
    'mx1.down.test': { tls: 'none', hangUp: true },
    // A provider whose one fleet serves all its domains, refusing A.
    'mx.yahoodns.net': { tls: 'none', clients: { [A]: { blockSender: 'banner' } } },
    'mx1.open.test': { tls: 'none' },
  },
  domains: {
    'refusing.test': { mx: [{ host: 'mx1.refusing.test', priority: 10 }], mailboxes: { jane: 'ok' } },
    'dropping.test': { mx: [{ host: 'mx1.dropping.test', priority: 10 }], mailboxes: { jane: 'ok' } },
    'down.test': { mx: [{ host: 'mx1.down.test', priority: 10 }], mailboxes: { jane: 'ok' } },
    'yahoo-hosted.test': { mx: [{ host: 'mx.yahoodns.net', priority: 10 }], mailboxes: { jane: 'ok' } },
    'open.test': { mx: [{ host: 'mx1.open.test', priority: 10 }], mailboxes: { jane: 'ok' } },
  },
};

let lab: Lab;

beforeAll(async () => {
  lab = await startLab(scenario);
});
afterAll(() => lab.stop());

function engineWith(egress: string, extra: Record<string, string> = {}): VerificationEngine {
  return createEngine(
    loadConfig({
      ...lab.env,
      SMTP_HELO_NAME: 'probe.mailguard.test',
      SMTP_TIMEOUT_MS: '2000',
      SMTP_SESSION_IDLE_MS: '0',
      SMTP_EGRESS: egress,
      ...extra,
    }),
  );
}

it('goes out through the first egress in SMTP_EGRESS order, its source address the one the server sees', async () => {
  const engine = engineWith(`local:${B},local:${A}`);
  lab.resetStats();
  const result = await engine.verify('jane@open.test');
  expect(result.reachable).toBe('safe');
  expect(Object.keys(lab.stats('mx1.open.test').byClient)).toEqual([B]);
  expect(engine.egress.blocks()).toEqual([]);
});

it('a refusal of the egress blocks it for the key and the probe goes on through the next; later probes skip it', async () => {
  const engine = engineWith(`local:${A},local:${B}`);
  lab.resetStats();
  const first = await engine.verify('jane@refusing.test');
  expect(first).toMatchObject({ reachable: 'safe', reason: 'accepted_email' });
  expect(engine.egress.blocks()).toEqual([
    expect.objectContaining({
      egress: `local:${A}`,
      key: 'refusing.test',
      strikes: 1,
      reason: expect.stringContaining('554'),
    }),
  ]);
  lab.resetStats();
  const second = await engine.verify('nobody@refusing.test');
  expect(second.reason).toBe('rejected_email');
  expect(Object.keys(lab.stats('mx1.refusing.test').byClient)).toEqual([B]);
  // The block is the key's only: A still serves other domains.
  expect((await engine.verify('jane@open.test')).reachable).toBe('safe');
  expect(Object.keys(lab.stats('mx1.open.test').byClient)).toContain(A);
});

it('an egress that cannot connect where another can is blocked; where none can, the hosts are down: mx_unreachable, nothing blocked', async () => {
  const engine = engineWith(`local:${A},local:${B}`);
  expect((await engine.verify('jane@dropping.test')).reachable).toBe('safe');
  expect(engine.egress.blocks().map((block) => [block.egress, block.key])).toEqual([[`local:${A}`, 'dropping.test']]);

  const down = await engine.verify('jane@down.test');
  expect(down).toMatchObject({ reachable: 'unknown', subStatus: 'mx_unreachable' });
  expect(engine.egress.blocks().map((block) => block.key)).not.toContain('down.test');
});

it('with one egress: a host that hangs up is unreachable and blocks nothing (nothing tells it from a host that is down); a refusal blocks it', async () => {
  const engine = engineWith(`local:${A}`);
  expect(await engine.verify('jane@dropping.test')).toMatchObject({
    reachable: 'unknown',
    subStatus: 'mx_unreachable',
  });
  expect(engine.egress.blocks()).toEqual([]);

  expect(await engine.verify('jane@yahoo-hosted.test')).toMatchObject({
    reachable: 'unknown',
    subStatus: 'sender_blocked',
  });
  expect(engine.egress.blocks()).toEqual([expect.objectContaining({ egress: `local:${A}`, key: 'yahoo' })]);
  // Nothing usable is left for the provider: answered sender_blocked without a connection.
  lab.resetStats();
  expect(await engine.verify('other@yahoo-hosted.test')).toMatchObject({
    reachable: 'unknown',
    subStatus: 'sender_blocked',
    status: 'risky',
  });
  expect(lab.stats('mx.yahoodns.net').sessions).toBe(0);
});

it('an egress reserved for a provider carries its probes, and no other', async () => {
  const engine = engineWith(`local:${A},local:${B}@yahoo`);
  lab.resetStats();
  await engine.verify('jane@yahoo-hosted.test');
  await engine.verify('jane@open.test');
  expect(Object.keys(lab.stats('mx.yahoodns.net').byClient)).toEqual([B]);
  expect(Object.keys(lab.stats('mx1.open.test').byClient)).toEqual([A]);
});
