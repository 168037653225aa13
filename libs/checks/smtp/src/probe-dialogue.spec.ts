import { startLab, type Lab } from '../../../../test/lab';
import type { Scenario, ServerSpec } from '../../../../test/lab/scenario';
import { directConnector } from './client';
import { probeMailboxes, type ProbeResult } from './probe';
import { MemorySessionGate } from './session-gate';
import { TlsSessionCache } from './tls-sessions';

/**
 * A connecting probe's dialogue on the wire, through the lab's real sockets: STARTTLS where it is
 * offered and EHLO again after it (RFC 3207), then MAIL and the RCPTs in one write where PIPELINING
 * is offered (RFC 2920) and one at a time where it is not — every reply read for its own command.
 */
const SERVERS: Record<string, ServerSpec> = {
  'mx.pipe.test': {},
  'mx.nopipe.test': { pipelining: false },
  'mx.blockpipe.test': { blockSender: 'mail' },
  'mx.blocknopipe.test': { blockSender: 'mail', pipelining: false },
};
const scenario: Scenario = {
  servers: SERVERS,
  domains: Object.fromEntries(
    Object.keys(SERVERS).map((host) => [
      host.slice('mx.'.length),
      { mx: [{ host, priority: 10 }], mailboxes: { user1: 'ok' } },
    ]),
  ),
};
const HELO = 'dialogue.mailguard.test';
const MAIL = 'MAIL FROM:<verify@dialogue.mailguard.test>';

let lab: Lab;
beforeAll(async () => {
  lab = await startLab(scenario);
});
afterAll(() => lab.stop());

/**
 * One connecting probe of user1 at the server's domain (with the made-up address), run to the
 * server's end of it: what the server was sent before QUIT, the reply batches it wrote for them
 * (the round trips the prober waited for), and its TLS sessions.
 */
async function dialogue(
  host: string,
  tlsSessions = new TlsSessionCache(),
): Promise<{ result: ProbeResult; commands: string[]; batches: number; tls: number; resumed: number }> {
  const server = lab.smtp(host);
  server.resetStats();
  const domain = host.slice('mx.'.length);
  // The prober does not wait for QUIT's reply: the server's count is read once it has heard QUIT.
  let stop = () => undefined as void;
  const quit = new Promise<void>((resolve) => {
    stop = server.onCommand((command) => {
      if (command === 'QUIT') resolve();
    });
  });
  const { results } = await probeMailboxes({
    hosts: [{ exchange: host, addresses: [lab.ipOf(host)] }],
    addresses: [`user1@${domain}`],
    needsSmtpUtf8: false,
    catchAllLocalPart: 'mgvdecoy0000',
    heloName: HELO,
    mailFrom: 'verify@dialogue.mailguard.test',
    port: lab.smtpPort,
    timeoutMs: 5_000,
    connector: directConnector,
    allowPrivate: true,
    gate: new MemorySessionGate(5),
    tlsSessions,
    deadlineAt: Date.now() + 60_000,
  });
  await quit;
  stop();
  // QUIT's 221 is written after its command is heard.
  await new Promise((resolve) => setImmediate(resolve));
  const { commands, replyBatches, tlsSessions: tls, tlsResumed } = server.stats;
  return {
    result: results[0],
    commands: commands.slice(0, commands.indexOf('QUIT')),
    batches: replyBatches - 1,
    tls,
    resumed: tlsResumed,
  };
}

it('where PIPELINING is offered: STARTTLS, EHLO again, then MAIL and both RCPTs in one round trip', async () => {
  const { result, commands, batches, tls } = await dialogue('mx.pipe.test');
  expect(result).toMatchObject({ definite: true, replyClass: 'accepted', catchAll: false });
  expect(commands).toEqual([
    `EHLO ${HELO}`,
    'STARTTLS',
    `EHLO ${HELO}`,
    MAIL,
    'RCPT TO:<user1@pipe.test>',
    'RCPT TO:<mgvdecoy0000@pipe.test>',
  ]);
  expect(tls).toBe(1);
  // Banner, EHLO, STARTTLS, EHLO, and MAIL with both RCPTs: the least a connecting check can wait for.
  expect(batches).toBe(5);
});

it('where PIPELINING is not offered: MAIL and each RCPT wait for their own reply', async () => {
  const { result, commands, batches, tls } = await dialogue('mx.nopipe.test');
  expect(result).toMatchObject({ definite: true, replyClass: 'accepted', catchAll: false });
  expect(commands.slice(2)).toEqual([
    `EHLO ${HELO}`,
    MAIL,
    'RCPT TO:<user1@nopipe.test>',
    'RCPT TO:<mgvdecoy0000@nopipe.test>',
  ]);
  expect(tls).toBe(1);
  expect(batches).toBe(7);
});

it('a pipelined MAIL refused: the RCPTs sent with it are answered too, and their replies are not taken for the answer', async () => {
  const { result, commands, batches } = await dialogue('mx.blockpipe.test');
  expect(commands.slice(-3)).toEqual([MAIL, 'RCPT TO:<user1@blockpipe.test>', 'RCPT TO:<mgvdecoy0000@blockpipe.test>']);
  expect(batches).toBe(5);
  // The MAIL's 554 decides, not the 503 "need MAIL command" each RCPT got after it.
  expect(result).toMatchObject({ definite: false, failure: 'sender_blocked', catchAll: null });
  expect(result.reply?.code).toBe(554);
});

it('a MAIL refused without PIPELINING: no RCPT is sent after it', async () => {
  const { result, commands } = await dialogue('mx.blocknopipe.test');
  expect(commands.slice(-1)).toEqual([MAIL]);
  expect(result).toMatchObject({ definite: false, failure: 'sender_blocked' });
  expect(result.reply?.code).toBe(554);
});

it('the next connecting probe at a host resumes the TLS session the host gave the last one', async () => {
  const tlsSessions = new TlsSessionCache();
  expect(await dialogue('mx.pipe.test', tlsSessions)).toMatchObject({ tls: 1, resumed: 0 });
  const again = await dialogue('mx.pipe.test', tlsSessions);
  expect(again).toMatchObject({ tls: 1, resumed: 1, batches: 5 });
  expect(again.result).toMatchObject({ definite: true, replyClass: 'accepted' });
});
