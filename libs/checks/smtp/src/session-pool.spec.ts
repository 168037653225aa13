import { startLab, type Lab } from '../../../../test/lab';
import type { Scenario } from '../../../../test/lab/scenario';
import { directConnector } from './client';
import { probeMailboxes, type ProbeOptions } from './probe';
import { MemorySessionGate } from './session-gate';
import { SessionPool } from './session-pool';

/**
 * Sessions kept open between probes, through the lab's real sockets: the next probe at the same
 * address skips connect, banner, EHLO and STARTTLS; the slot stays taken while the session waits
 * and comes back on every way it ends (idle time up, the server hanging up, the pool closed, a
 * probe that went wrong).
 */
const MAILBOXES = { alice: 'ok', bob: 'ok' } as const;
const scenario: Scenario = {
  servers: {
    'mx.kept.test': {},
    'mx.other.test': { tls: 'none' },
    'mx.impatient.test': { idleTimeoutMs: 200 },
    'mx.blocking.test': { blockSender: 'mail' },
  },
  domains: {
    'kept.test': { mx: [{ host: 'mx.kept.test', priority: 10 }], mailboxes: { ...MAILBOXES } },
    'other.test': { mx: [{ host: 'mx.other.test', priority: 10 }], mailboxes: { ...MAILBOXES } },
    'impatient.test': { mx: [{ host: 'mx.impatient.test', priority: 10 }], mailboxes: { ...MAILBOXES } },
    'blocking.test': { mx: [{ host: 'mx.blocking.test', priority: 10 }], mailboxes: { ...MAILBOXES } },
  },
};

let lab: Lab;
let gate: MemorySessionGate;
let pool: SessionPool;
beforeAll(async () => {
  lab = await startLab(scenario);
});
afterAll(() => lab.stop());
beforeEach(() => {
  gate = new MemorySessionGate(5);
  pool = new SessionPool(60_000, gate);
});
afterEach(async () => {
  pool.close();
  await gate.leases.idle();
  for (const host of Object.keys(scenario.servers ?? {}))
    lab.smtp(host).behave({ dropAfter: undefined, vanishAt: undefined, replies: {} });
});

function options(address: string, extra: Partial<ProbeOptions> = {}): ProbeOptions {
  const host = `mx.${address.slice(address.indexOf('@') + 1)}`;
  return {
    hosts: [{ exchange: host, addresses: [lab.ipOf(host)] }],
    addresses: [address],
    needsSmtpUtf8: false,
    catchAllLocalPart: null,
    heloName: 'pool.mailguard.test',
    mailFrom: 'verify@pool.mailguard.test',
    port: lab.smtpPort,
    timeoutMs: 2_000,
    connector: directConnector,
    allowPrivate: true,
    gate,
    pool,
    deadlineAt: Date.now() + 60_000,
    ...extra,
  };
}

const sessionsAt = (host: string) => lab.stats(host).sessions;

it('gives the next probe at the address the parked session: one connection, RSET pipelined in one round trip', async () => {
  const before = { sessions: sessionsAt('mx.kept.test'), commands: lab.stats('mx.kept.test').commands.length };
  const first = await probeMailboxes(options('alice@kept.test'));
  expect(first.results[0]).toMatchObject({ definite: true, replyClass: 'accepted' });
  // Kept open: the slot is still taken, by an open session.
  expect(pool.size).toBe(1);
  expect(gate.snapshot().hosts).toEqual([{ host: 'mx.kept.test', slotsHeld: 1, sessionsOpen: 1 }]);

  expect(pool.reused).toBe(0);
  const second = await probeMailboxes(options('carol@kept.test'));
  expect(second.results[0]).toMatchObject({ definite: true, replyClass: 'no_such_user' });
  expect(second.sessions).toBe(0);
  expect(pool.reused).toBe(1);
  expect(second.roundTrips).toBe(1);
  expect(sessionsAt('mx.kept.test') - before.sessions).toBe(1);
  const commands = lab.stats('mx.kept.test').commands.slice(before.commands);
  expect(commands.filter((command) => command.startsWith('EHLO'))).toHaveLength(2);
  expect(commands.slice(-3)).toEqual(['RSET', 'MAIL FROM:<verify@pool.mailguard.test>', 'RCPT TO:<carol@kept.test>']);
  expect(lab.stats('mx.kept.test').violations).toEqual([]);
});

it("is not aborted by the earlier probe's deadline, only by that of the probe using it", async () => {
  const earlier = new AbortController();
  await probeMailboxes(options('alice@kept.test', { signal: earlier.signal }));
  earlier.abort();
  expect(pool.size).toBe(1);
  const later = new AbortController();
  const result = await probeMailboxes(options('bob@kept.test', { signal: later.signal }));
  expect(result.results[0]).toMatchObject({ definite: true, replyClass: 'accepted' });
  expect(result.sessions).toBe(0);
});

it('says goodbye when its idle time is up, and the slot comes back', async () => {
  pool = new SessionPool(20, gate);
  const before = lab.stats('mx.kept.test').commands.length;
  await probeMailboxes(options('alice@kept.test'));
  expect(gate.snapshot().hosts).toEqual([{ host: 'mx.kept.test', slotsHeld: 1, sessionsOpen: 1 }]);
  expect(pool.watching).toBe(true);
  await gate.leases.idle();
  expect(pool.size).toBe(0);
  expect(pool.watching).toBe(false);
  expect(lab.stats('mx.kept.test').commands.slice(before).at(-1)).toBe('QUIT');
});

it('drops out when the server hangs up on it meanwhile (421 idle timeout): the slot comes back, the next probe connects anew', async () => {
  const before = sessionsAt('mx.impatient.test');
  await probeMailboxes(options('alice@impatient.test'));
  await gate.leases.idle();
  expect(pool.size).toBe(0);
  const next = await probeMailboxes(options('bob@impatient.test'));
  expect(next.results[0]).toMatchObject({ definite: true, replyClass: 'accepted' });
  expect(next.sessions).toBe(1);
  expect(sessionsAt('mx.impatient.test') - before).toBe(2);
});

it('asks again on a new session when the parked one turns out to be dead at its first command', async () => {
  const before = sessionsAt('mx.kept.test');
  await probeMailboxes(options('alice@kept.test'));
  // The server drops the connection at RSET, which only a reused session sends first.
  lab.smtp('mx.kept.test').behave({ dropAfter: 'rset' });
  const next = await probeMailboxes(options('bob@kept.test'));
  expect(next.results[0]).toMatchObject({ definite: true, replyClass: 'accepted' });
  expect(next.sessions).toBe(1);
  expect(sessionsAt('mx.kept.test') - before).toBe(2);
});

it('replaces a parked session dropped silently on the way without waiting the whole command timeout', async () => {
  const slow = { timeoutMs: 60_000 };
  const before = sessionsAt('mx.kept.test');
  await probeMailboxes(options('alice@kept.test', slow));
  // Forgotten by a NAT, say: its RSET goes unanswered and nothing closes it.
  lab.smtp('mx.kept.test').behave({ vanishAt: 'rset' });
  const next = await probeMailboxes(options('bob@kept.test', slow));
  expect(next.results[0]).toMatchObject({ definite: true, replyClass: 'accepted' });
  expect(next.sessions).toBe(1);
  expect(sessionsAt('mx.kept.test') - before).toBe(2);
  // Well inside the 60 s per-command timeout: only a shorter wait for the kept session's first reply gets here.
}, 20_000);

it('is not kept after the server refused us: QUIT at once, and the slot comes back', async () => {
  const result = await probeMailboxes(options('alice@blocking.test'));
  expect(result.results[0]).toMatchObject({ definite: false, failure: 'sender_blocked' });
  expect(pool.size).toBe(0);
  await gate.leases.idle();
});

it('keeps none once closed: parked sessions say goodbye, later probes end with QUIT', async () => {
  await probeMailboxes(options('alice@kept.test'));
  expect(pool.size).toBe(1);
  pool.close();
  expect(pool.size).toBe(0);
  await gate.leases.idle();
  await probeMailboxes(options('bob@kept.test'));
  expect(pool.size).toBe(0);
  await gate.leases.idle();
});

it('keeps at most its capacity: the longest parked says goodbye to make room', async () => {
  pool = new SessionPool(60_000, gate, 1);
  const before = sessionsAt('mx.kept.test');
  await probeMailboxes(options('alice@kept.test'));
  await probeMailboxes(options('alice@other.test'));
  expect(pool.size).toBe(1);
  const again = await probeMailboxes(options('bob@kept.test'));
  expect(again.sessions).toBe(1);
  expect(sessionsAt('mx.kept.test') - before).toBe(2);
});

it('lets go of a parked session as soon as another prober waits for a slot at its host', async () => {
  gate = new MemorySessionGate(1);
  pool = new SessionPool(60_000, gate);
  await probeMailboxes(options('alice@kept.test'));
  expect(pool.size).toBe(1);
  // The only slot is the parked session's: a prober that needs one waits, and is let in.
  const lease = await gate.acquire('mx.kept.test', { until: Date.now() + 60_000, signal: AbortSignal.timeout(10_000) });
  expect(pool.size).toBe(0);
  expect(pool.watching).toBe(false);
  lease.release();
});

it('is not trusted when its RSET is answered otherwise than 250: the probe asks on a new session', async () => {
  const before = sessionsAt('mx.kept.test');
  await probeMailboxes(options('alice@kept.test'));
  lab.smtp('mx.kept.test').behave({ replies: { rset: '421 4.3.2 Service shutting down' } });
  const next = await probeMailboxes(options('bob@kept.test'));
  expect(next.results[0]).toMatchObject({ definite: true, replyClass: 'accepted' });
  expect(next.sessions).toBe(1);
  expect(sessionsAt('mx.kept.test') - before).toBe(2);
});

it('gives way to a prober already waiting at the gate: first come, first served', async () => {
  gate = new MemorySessionGate(1);
  pool = new SessionPool(60_000, gate);
  await probeMailboxes(options('alice@kept.test'));
  const order: string[] = [];
  const waiter = gate.acquire('mx.kept.test', { until: Date.now() + 60_000 }).then((lease) => {
    order.push('waiter');
    return lease;
  });
  // The next probe at the same address finds a prober waiting: it queues behind it instead of taking the session.
  const probe = probeMailboxes(options('bob@kept.test')).then((result) => {
    order.push('probe');
    return result;
  });
  (await waiter).release();
  expect((await probe).results[0]).toMatchObject({ definite: true, replyClass: 'accepted' });
  expect(order).toEqual(['waiter', 'probe']);
});

it('is not used at a host cooling down: the probe is refused at the gate like any other', async () => {
  await probeMailboxes(options('alice@kept.test'));
  const before = lab.stats('mx.kept.test').commands.length;
  await gate.coolDown('mx.kept.test', 60_000, 'busy');
  const next = await probeMailboxes(options('bob@kept.test'));
  expect(next.results[0]).toMatchObject({ definite: false, failure: 'rate_limited' });
  expect(pool.size).toBe(0);
  expect(
    lab
      .stats('mx.kept.test')
      .commands.slice(before)
      .filter((command) => command.startsWith('RCPT')),
  ).toEqual([]);
});

it('asks a host without SMTPUTF8 nothing for an address that needs it, and keeps the session for the next', async () => {
  await probeMailboxes(options('alice@kept.test'));
  const before = { sessions: sessionsAt('mx.kept.test'), commands: lab.stats('mx.kept.test').commands.length };
  const utf8 = await probeMailboxes(options('jösé@kept.test', { needsSmtpUtf8: true }));
  expect(utf8.results[0]).toMatchObject({ definite: false, failure: 'smtputf8_unsupported' });
  expect(pool.size).toBe(1);
  const next = await probeMailboxes(options('bob@kept.test'));
  expect(next.sessions).toBe(0);
  expect(sessionsAt('mx.kept.test')).toBe(before.sessions);
  expect(lab.stats('mx.kept.test').commands.slice(before.commands)).not.toContain('RCPT TO:<jösé@kept.test>');
});
