import { startLab, type Lab } from '../../../../test/lab';
import type { Scenario } from '../../../../test/lab/scenario';
import { directConnector } from './client';
import { probeMailboxes, RecipientLimits, type ProbeOptions } from './probe';
import { MemorySessionGate } from './session-gate';

/**
 * Transactions back to back in one session, through the lab's real sockets: RSET goes out with the
 * next MAIL and RCPTs (one round trip per transaction), and a host's recipient limit (452 4.5.3) is
 * learnt once and kept to by the probes after.
 */
const MAILBOXES = Object.fromEntries(
  Array.from({ length: 16 }, (_, i) => [`user${i}`, i % 2 === 0 ? 'ok' : 'disabled']),
);
const scenario: Scenario = {
  servers: { 'mx.capped.test': { tls: 'none', maxRecipients: 3 } },
  domains: { 'capped.test': { mx: [{ host: 'mx.capped.test', priority: 10 }], mailboxes: MAILBOXES } },
};

let lab: Lab;
beforeAll(async () => {
  lab = await startLab(scenario);
});
afterAll(() => lab.stop());

function options(users: number[], extra: Partial<ProbeOptions> = {}): ProbeOptions {
  return {
    hosts: [{ exchange: 'mx.capped.test', addresses: [lab.ipOf('mx.capped.test')] }],
    addresses: users.map((user) => `user${user}@capped.test`),
    needsSmtpUtf8: false,
    catchAllLocalPart: null,
    heloName: 'transactions.mailguard.test',
    mailFrom: 'verify@transactions.mailguard.test',
    port: lab.smtpPort,
    timeoutMs: 2_000,
    connector: directConnector,
    allowPrivate: true,
    gate: new MemorySessionGate(5),
    deadlineAt: Date.now() + 60_000,
    ...extra,
  };
}

const rcptsSince = (before: number) =>
  lab
    .stats('mx.capped.test')
    .commands.slice(before)
    .filter((command) => command.startsWith('RCPT'));

it('sends RSET with the next transaction: one round trip per transaction', async () => {
  const recipientLimits = new RecipientLimits();
  recipientLimits.learn('mx.capped.test', 3);
  const one = await probeMailboxes(options([0], { recipientLimits }));
  const before = lab.stats('mx.capped.test').commands.length;
  const seven = await probeMailboxes(options([0, 1, 2, 3, 4, 5, 6], { recipientLimits }));
  expect(seven.results.every((result) => result.definite)).toBe(true);
  // Three transactions where one took one: two more round trips, not four.
  expect(seven.roundTrips - one.roundTrips).toBe(2);
  const commands = lab.stats('mx.capped.test').commands.slice(before);
  const resets = commands.flatMap((command, index) => (command === 'RSET' ? [commands[index + 1]] : []));
  expect(resets).toEqual([
    'MAIL FROM:<verify@transactions.mailguard.test>',
    'MAIL FROM:<verify@transactions.mailguard.test>',
  ]);
});

it('learns a host’s recipient limit from 452 4.5.3 once; the next probe keeps to it, its made-up address included', async () => {
  const recipientLimits = new RecipientLimits();
  let before = lab.stats('mx.capped.test').commands.length;
  const first = await probeMailboxes(
    options([0, 1, 2, 3, 4, 5, 6], { recipientLimits, catchAllLocalPart: 'mgvdecoy0000' }),
  );
  expect(first.results.map((result) => result.replyClass)).toEqual([
    'accepted',
    'disabled',
    'accepted',
    'disabled',
    'accepted',
    'disabled',
    'accepted',
  ]);
  expect(recipientLimits.get('mx.capped.test')).toBe(3);
  // Learning cost a transaction of seven recipients and the made-up one, four of them refused.
  expect(rcptsSince(before).length).toBeGreaterThan(8);

  before = lab.stats('mx.capped.test').commands.length;
  const sessions = lab.stats('mx.capped.test').sessions;
  const second = await probeMailboxes(
    options([8, 9, 10, 11, 12, 13, 14], { recipientLimits, catchAllLocalPart: 'mgvdecoy0001' }),
  );
  expect(second.results.every((result) => result.definite)).toBe(true);
  // Every recipient asked once, the made-up one in the first transaction's last place: nothing refused for its number.
  expect(rcptsSince(before)).toEqual([
    'RCPT TO:<user8@capped.test>',
    'RCPT TO:<user9@capped.test>',
    'RCPT TO:<mgvdecoy0001@capped.test>',
    'RCPT TO:<user10@capped.test>',
    'RCPT TO:<user11@capped.test>',
    'RCPT TO:<user12@capped.test>',
    'RCPT TO:<user13@capped.test>',
    'RCPT TO:<user14@capped.test>',
  ]);
  expect(lab.stats('mx.capped.test').sessions - sessions).toBe(1);
  expect(second.results[0].catchAll).toBe(false);
});

it('forgets the oldest host past the hosts it remembers', () => {
  const recipientLimits = new RecipientLimits();
  for (let host = 0; host <= 10_000; host++) recipientLimits.learn(`mx${host}.test`, 10);
  expect(recipientLimits.get('mx0.test')).toBeNull();
  expect(recipientLimits.get('mx1.test')).toBe(10);
  expect(recipientLimits.get('mx10000.test')).toBe(10);
});
