import { createServer, type Server, type Socket } from 'node:net';
import { startLab, type Lab } from '../../../../test/lab';
import type { Scenario, ServerSpec } from '../../../../test/lab/scenario';
import { directConnector } from './client';
import { probeMailboxes, type ProbeOptions, type ProbeResult } from './probe';
import { MemorySessionGate } from './session-gate';

/** A single check is a group of one. */
async function probeOne(options: ProbeOptions): Promise<ProbeResult> {
  return (await probeMailboxes(options)).results[0];
}

/**
 * Every way an SMTP session can end gives its per-MX slot back, exactly once, through the real
 * sockets of the lab. Deadlines are far away, so a slot that comes back here came back because its
 * session ended, not because its lease ran out (and an expiry would be reported).
 */
const MAILBOXES = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`user${i}`, 'ok']));
const SERVERS: Record<string, ServerSpec> = {
  'mx.plain.test': { tls: 'none' },
  'mx.tls.test': { tls: 'offered' },
  'mx.tlsreq.test': { tls: 'required' },
  'mx.tlsbroken.test': { tls: 'offered', tlsBroken: true },
  'mx.tarpit.test': { bannerDelayMs: 60_000 },
  'mx.picky.test': { tls: 'offered', maxRecipients: 1 },
  'mx.capped.test': { tls: 'offered', maxRecipients: 3 },
  'mx.grey.test': { tls: 'offered', greylistMs: 60_000 },
  'mx.blocked.test': { tls: 'offered', blockSender: 'rcpt' },
  'mx.busy.test': { tls: 'offered', blockSender: 'banner' },
  'mx.down.test': { down: true },
};

function scenario(): Scenario {
  const domains = Object.fromEntries(
    Object.keys(SERVERS).map((host) => [
      host.replace(/^mx\./, ''),
      { mx: [{ host, priority: 10 }], mailboxes: MAILBOXES },
    ]),
  );
  return { servers: SERVERS, domains };
}

let lab: Lab;
let gate: MemorySessionGate;
let expired: string[];

beforeAll(async () => {
  lab = await startLab(scenario());
});
afterAll(() => lab.stop());

beforeEach(() => {
  gate = new MemorySessionGate(5);
  expired = [];
  gate.observe({ expired: (host) => expired.push(host) });
});

function options(host: string, extra: Partial<ProbeOptions> = {}): ProbeOptions {
  const domain = host.replace(/^mx\./, '');
  return {
    hosts: [{ exchange: host, addresses: [lab.ipOf(host)] }],
    addresses: [`user1@${domain}`],
    needsSmtpUtf8: false,
    catchAllLocalPart: 'mgvdecoy0000',
    heloName: 'leases.mailguard.test',
    mailFrom: 'verify@leases.mailguard.test',
    port: lab.smtpPort,
    timeoutMs: 2_000,
    connector: directConnector,
    allowPrivate: true,
    gate,
    deadlineAt: Date.now() + 120_000,
    ...extra,
  };
}

/** Waits for the gate to hold nothing, failing with what it still holds after a few seconds. */
async function slotsGiveBack(): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const stuck = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`slots still held: ${JSON.stringify(gate.snapshot().hosts)}`)), 5_000);
  });
  try {
    await Promise.race([gate.leases.idle(), stuck]);
  } finally {
    clearTimeout(timer);
  }
  expect(gate.snapshot().hosts).toEqual([]);
  expect(expired).toEqual([]);
}

describe('a probe gives every slot back when its session ends', () => {
  it.each([
    ['plain QUIT', 'mx.plain.test', 'accepted'],
    ['after a STARTTLS upgrade', 'mx.tls.test', 'accepted'],
    ['after a required STARTTLS upgrade', 'mx.tlsreq.test', 'accepted'],
    ['after a broken TLS handshake retried in plaintext', 'mx.tlsbroken.test', 'accepted'],
    ['after a greylisting refusal over TLS', 'mx.grey.test', 'greylisted'],
    ['after a blocked refusal over TLS', 'mx.blocked.test', 'sender_blocked'],
    ['after a refusal in the banner', 'mx.busy.test', 'sender_blocked'],
  ])('%s', async (_, host, expected) => {
    const result = await probeOne(options(host));
    expect(result.replyClass ?? result.failure).toBe(expected);
    await slotsGiveBack();
  });

  it('when the made-up address is asked in its own session (one recipient per session)', async () => {
    const result = await probeOne(options('mx.picky.test'));
    expect(result).toMatchObject({ definite: true, replyClass: 'accepted', catchAll: false, sessions: 2 });
    await slotsGiveBack();
  });

  it('six sequential STARTTLS checks at one host never wait for a slot (the reported leak)', async () => {
    const waits: number[] = [];
    gate.observe({ waited: (_host, ms) => waits.push(ms) });
    for (let i = 0; i < 6; i++) {
      const result = await probeOne(
        options('mx.tls.test', { addresses: [`user${i}@tls.test`], catchAllLocalPart: null }),
      );
      expect(result.replyClass).toBe('accepted');
    }
    expect(waits).toHaveLength(6);
    await slotsGiveBack();
  });

  it('when the per-command timeout ends a silent session', async () => {
    const result = await probeOne(options('mx.tarpit.test', { timeoutMs: 200 }));
    expect(result.failure).toBe('timeout');
    await slotsGiveBack();
  });

  it('when the check deadline aborts the session mid-dialogue', async () => {
    // The banner would take a minute and the command timeout is 30 s: only the abort ends it.
    const result = await probeOne(options('mx.tarpit.test', { timeoutMs: 30_000, signal: AbortSignal.timeout(300) }));
    expect(result.failure).toBe('timeout');
    await slotsGiveBack();
  });

  it('when the connection is refused', async () => {
    const result = await probeOne(options('mx.down.test'));
    expect(result.failure).toBe('no_connection');
    await slotsGiveBack();
  });

  it('for a grouped probe of many transactions over TLS', async () => {
    const addresses = Array.from({ length: 10 }, (_, i) => `user${i}@capped.test`);
    const group = await probeMailboxes({ ...options('mx.capped.test'), addresses });
    expect(group.results.every((result) => result.replyClass === 'accepted')).toBe(true);
    await slotsGiveBack();
  });

  it('for a grouped probe that stops at the first accepted address', async () => {
    const addresses = ['nobody1@tls.test', 'user2@tls.test', 'nobody3@tls.test', 'user4@tls.test'];
    const group = await probeMailboxes({ ...options('mx.tls.test'), addresses, stopAtAccepted: 2 });
    expect(group.results.map((result) => result.replyClass ?? result.failure)).toEqual([
      'no_such_user',
      'accepted',
      'skipped',
      'skipped',
    ]);
    await slotsGiveBack();
  });
});

describe('servers that misbehave at the end', () => {
  let server: Server;
  let sockets: Socket[];

  /** Answers like a server but never answers QUIT nor closes the connection. */
  beforeAll(async () => {
    sockets = [];
    // allowHalfOpen: our FIN does not make it close its side either.
    server = createServer({ allowHalfOpen: true }, (socket) => {
      sockets.push(socket);
      socket.write('220 deaf.test ESMTP\r\n');
      socket.on('data', (chunk) => {
        for (const line of chunk.toString().split('\r\n').filter(Boolean)) {
          if (/^EHLO/i.test(line)) socket.write('250-deaf.test\r\n250 PIPELINING\r\n');
          else if (/^(MAIL|RCPT)/i.test(line)) socket.write('250 2.1.5 Ok\r\n');
        }
      });
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  it('a server that never answers QUIT nor closes does not keep the slot', async () => {
    const port = (server.address() as { port: number }).port;
    const result = await probeOne({
      ...options('mx.plain.test'),
      hosts: [{ exchange: 'deaf.test', addresses: ['127.0.0.1'] }],
      addresses: ['user1@deaf.test'],
      port,
    });
    expect(result.replyClass).toBe('accepted');
    await slotsGiveBack();
  });
});
