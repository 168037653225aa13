import { startLab, type Lab } from '../../../../test/lab';
import type { Scenario, ServerSpec } from '../../../../test/lab/scenario';
import { directConnector } from './client';
import { probeMailboxes, type ProbeHost, type ProbeOptions, type ProbeResult } from './probe';
import { MemorySessionGate } from './session-gate';

/** A single check is a group of one. */
async function probeOne(options: ProbeOptions): Promise<ProbeResult> {
  return (await probeMailboxes(options)).results[0];
}

/**
 * What the prober does with each kind of refusal, through the lab's real sockets: a server that
 * refuses us says so in the result (its egress is then left out, see egress.ts), one that asks us
 * to slow down is backed off (busy),
 * and a relay refusal at one MX moves on to the next without darkening that host for other domains.
 */
const SERVERS: Record<string, ServerSpec> = {
  // Postfix's anvil text for a client over its message rate, at RCPT.
  'mx.slow.test': { tls: 'none', replies: { accepted: '450 4.7.1 Error: too much mail from {ip}' } },
  'mx.slowgroup.test': { tls: 'none', replies: { accepted: '450 4.7.1 Error: too much mail from {ip}' } },
  // A blocklist refusal of our MAIL FROM.
  'mx.mailblocked.test': { tls: 'none', blockSender: 'mail' },
  // Kerio Connect's relay refusal, for the domain it does not serve.
  'mx.norelay.test': { tls: 'none', replies: { relayDenied: '550 5.7.1 Relaying to <{addr}> denied' } },
  'mx.good.test': { tls: 'none' },
  // GoDaddy's hourly limit (IB607): worded like a recipient cap, but another session is refused too.
  'mx.hourly.test': { tls: 'none', replies: { accepted: '550 {ip} has sent to too many recipients this hour. IB607' } },
  // The same limit told only at the made-up address.
  'mx.decoyhourly.test': {
    tls: 'none',
    replies: { unknownUser: '550 {ip} has sent to too many recipients this hour. IB607' },
  },
  // One recipient per session, and the hourly limit told when the made-up address is asked alone.
  'mx.capped.test': {
    tls: 'none',
    maxRecipients: 1,
    replies: { unknownUser: '550 {ip} has sent to too many recipients this hour. IB607' },
  },
  // A MAIL FROM refusal in words that, after RCPT, would say "no such user".
  'mx.mailunknown.test': { tls: 'none', blockSender: 'mail', replies: { blocked: '550 5.1.1 User unknown' } },
};

const scenario: Scenario = {
  servers: SERVERS,
  domains: {
    'slow.test': { mx: [{ host: 'mx.slow.test', priority: 10 }], mailboxes: { user1: 'ok' } },
    'slowgroup.test': { mx: [{ host: 'mx.slowgroup.test', priority: 10 }], mailboxes: { user1: 'ok', user2: 'ok' } },
    'mailblocked.test': { mx: [{ host: 'mx.mailblocked.test', priority: 10 }], mailboxes: { user1: 'ok' } },
    // Only mx.good.test serves it; the probe is also given mx.norelay.test first, as for a domain
    // whose stale first MX relays nothing for it.
    'split.test': { mx: [{ host: 'mx.good.test', priority: 20 }], mailboxes: { user1: 'ok' } },
    'norelay.test': { mx: [{ host: 'mx.norelay.test', priority: 10 }], mailboxes: { user1: 'ok' } },
    'hourly.test': { mx: [{ host: 'mx.hourly.test', priority: 10 }], mailboxes: { user1: 'ok' } },
    'decoyhourly.test': { mx: [{ host: 'mx.decoyhourly.test', priority: 10 }], mailboxes: { user1: 'ok' } },
    'capped.test': { mx: [{ host: 'mx.capped.test', priority: 10 }], mailboxes: { user1: 'ok' } },
    'mailunknown.test': { mx: [{ host: 'mx.mailunknown.test', priority: 10 }], mailboxes: { user1: 'ok' } },
  },
};

let lab: Lab;
let gate: MemorySessionGate;

beforeAll(async () => {
  lab = await startLab(scenario);
});
afterAll(() => lab.stop());

beforeEach(() => {
  gate = new MemorySessionGate(5);
});

function host(name: string): ProbeHost {
  return { exchange: name, addresses: [lab.ipOf(name)] };
}

function options(address: string, hosts: string[]): ProbeOptions {
  return {
    hosts: hosts.map(host),
    addresses: [address],
    needsSmtpUtf8: false,
    catchAllLocalPart: 'mgvdecoy0000',
    heloName: 'replies.mailguard.test',
    mailFrom: 'verify@replies.mailguard.test',
    port: lab.smtpPort,
    timeoutMs: 2_000,
    connector: directConnector,
    allowPrivate: true,
    gate,
    deadlineAt: Date.now() + 60_000,
  };
}

describe('each reply class drives the prober', () => {
  it('a rate limit at RCPT backs off the host: the next probe does not connect', async () => {
    const first = await probeOne(options('user1@slow.test', ['mx.slow.test']));
    expect(first).toMatchObject({ definite: false, replyClass: 'rate_limited', failure: 'rate_limited' });
    expect(gate.snapshot().coolDowns).toEqual([{ host: 'mx.slow.test', reason: 'busy' }]);

    const sessions = lab.stats('mx.slow.test').sessions;
    const second = await probeOne(options('user1@slow.test', ['mx.slow.test']));
    expect(second).toMatchObject({ definite: false, failure: 'rate_limited', sessions: 0 });
    expect(lab.stats('mx.slow.test').sessions).toBe(sessions);
  });

  it('a rate limit at RCPT in a grouped probe ends the session and backs off the host', async () => {
    const group = await probeMailboxes({
      ...options('user1@slowgroup.test', ['mx.slowgroup.test']),
      addresses: ['user1@slowgroup.test', 'user2@slowgroup.test'],
    });
    expect(group.results.map((result) => result.failure)).toEqual(['rate_limited', 'rate_limited']);
    expect(gate.snapshot().coolDowns).toEqual([{ host: 'mx.slowgroup.test', reason: 'busy' }]);
  });

  it("a blocklist refusal at MAIL FROM is the egress's: the result says so, and the host stays open to other egresses", async () => {
    const result = await probeOne(options('user1@mailblocked.test', ['mx.mailblocked.test']));
    expect(result).toMatchObject({ definite: false, failure: 'sender_blocked', replyClass: 'sender_blocked' });
    expect(result.reply?.message).toContain('zen.spamhaus.org');
    expect(gate.snapshot().coolDowns).toEqual([]);
  });

  it('relay denied at the first MX: the next MX answers, and the first host stays open for the domains it serves', async () => {
    const split = await probeOne(options('user1@split.test', ['mx.norelay.test', 'mx.good.test']));
    expect(split).toMatchObject({ definite: true, replyClass: 'accepted', host: 'mx.good.test' });
    expect(gate.snapshot().coolDowns).toEqual([]);

    const served = await probeOne(options('user1@norelay.test', ['mx.norelay.test']));
    expect(served).toMatchObject({ definite: true, replyClass: 'accepted', host: 'mx.norelay.test' });
  });

  it('an hourly limit at RCPT is a rate limit: the host cools down and no second session is opened', async () => {
    const result = await probeOne(options('user1@hourly.test', ['mx.hourly.test']));
    expect(result).toMatchObject({ definite: false, replyClass: 'rate_limited', failure: 'rate_limited', sessions: 1 });
    expect(gate.snapshot().coolDowns).toEqual([{ host: 'mx.hourly.test', reason: 'busy' }]);
    expect(lab.stats('mx.hourly.test').sessions).toBe(1);
  });

  it('an hourly limit told at the made-up address ends the session and cools the host, keeping the answer', async () => {
    const result = await probeOne(options('user1@decoyhourly.test', ['mx.decoyhourly.test']));
    expect(result).toMatchObject({ definite: true, replyClass: 'accepted', catchAll: null, sessions: 1 });
    expect(gate.snapshot().coolDowns).toEqual([{ host: 'mx.decoyhourly.test', reason: 'busy' }]);
    expect(lab.stats('mx.decoyhourly.test').sessions).toBe(1);
  });

  it('an hourly limit told when the made-up address is asked in a session of its own cools the host too', async () => {
    const result = await probeOne(options('user1@capped.test', ['mx.capped.test']));
    expect(result).toMatchObject({ definite: true, replyClass: 'accepted', catchAll: null, sessions: 2 });
    expect(gate.snapshot().coolDowns).toEqual([{ host: 'mx.capped.test', reason: 'busy' }]);
  });

  it('a refusal at MAIL FROM keeps the class it has there, whatever it would say after RCPT', async () => {
    const result = await probeOne(options('user1@mailunknown.test', ['mx.mailunknown.test']));
    expect(result).toMatchObject({ definite: false, failure: 'sender_blocked', replyClass: 'sender_blocked' });
    expect(result.reply?.message).toBe('User unknown');
  });
});
