import { startLab, type Lab } from './lab';
import { loadScenario, type ServerSpec } from './scenario';
import { SmtpDialogue, type Reply } from './testing/smtp-dialogue';

let lab: Lab;

/** How mx.egress.test treats the prober's egresses (source addresses): one blocklisted, one dropped. */
const EGRESS_CLIENTS: ServerSpec['clients'] = {
  '127.250.0.2': { blockSender: 'banner', replies: { blocked: '554 5.7.1 {ip} is listed' } },
  '127.250.0.3': { hangUp: true },
};

beforeAll(async () => {
  const scenario = loadScenario();
  // Short timers so the behaviours can be walked through quickly.
  scenario.servers!['mx.greylist.test'].greylistMs = 300;
  scenario.servers!['mx.tarpit.test'].bannerDelayMs = 400;
  // A server each hostile behaviour is switched on and off at.
  scenario.servers!['mx.hostile.test'] = {};
  scenario.domains!['hostile.test'] = { mx: [{ host: 'mx.hostile.test', priority: 10 }], mailboxes: { kim: 'ok' } };
  // A server that treats the prober's egresses (source addresses) differently.
  scenario.servers!['mx.egress.test'] = { clients: EGRESS_CLIENTS };
  scenario.domains!['egress.test'] = { mx: [{ host: 'mx.egress.test', priority: 10 }], mailboxes: { lee: 'ok' } };
  lab = await startLab(scenario);
});

afterAll(() => lab.stop());

async function session(host: string): Promise<SmtpDialogue> {
  const dialogue = await SmtpDialogue.open(lab.ipOf(host), lab.smtpPort);
  expect((await dialogue.reply()).code).toBe(220);
  return dialogue;
}

/** Opens a session and walks to the RCPT replies for the given recipients. */
async function probe(host: string, recipients: string[]): Promise<Reply[]> {
  const dialogue = await session(host);
  expect((await dialogue.command('EHLO prober.mailguard.test')).code).toBe(250);
  expect((await dialogue.command('MAIL FROM:<verify@mailguard.test>')).code).toBe(250);
  const replies: Reply[] = [];
  for (const recipient of recipients) replies.push(await dialogue.command(`RCPT TO:<${recipient}>`));
  expect((await dialogue.command('QUIT')).code).toBe(221);
  await dialogue.closed();
  return replies;
}

describe('mailbox answers of a normal server', () => {
  it('accepts a mailbox, rejects an unknown user with 5.1.1, and answers full, disabled and custom states', async () => {
    const replies = await probe('mx1.acme.test', [
      'john.doe@acme.test',
      'nobody@acme.test',
      'full.box@acme.test',
      'temp.full@acme.test',
      'gone@acme.test',
      'inactive.user@acme.test',
      'JOHN.DOE@ACME.TEST',
    ]);
    expect(replies.map((r) => r.code)).toEqual([250, 550, 552, 452, 550, 550, 250]);
    expect(replies[0].text).toBe('2.1.5 Ok');
    expect(replies[1].text).toMatch(/^5\.1\.1 <nobody@acme\.test>: .*User unknown/);
    expect(replies[2].text).toMatch(/^5\.2\.2 .*Mailbox full/);
    expect(replies[3].text).toMatch(/^4\.2\.2 /);
    expect(replies[4].text).toMatch(/^5\.2\.1 .*disabled/);
    expect(replies[5].text).toBe('5.2.1 <inactive.user@acme.test>: Recipient address rejected: account inactive');
  });

  it('refuses to relay for domains it does not serve', async () => {
    const [reply] = await probe('mx1.acme.test', ['someone@catchall.test']);
    expect(reply.code).toBe(554);
    expect(reply.text).toMatch(/Relay access denied/);
  });

  it('enforces the command order: EHLO before MAIL, MAIL before RCPT', async () => {
    const dialogue = await session('mx1.acme.test');
    expect((await dialogue.command('MAIL FROM:<a@b.test>')).code).toBe(503);
    expect((await dialogue.command('EHLO x.test')).code).toBe(250);
    expect((await dialogue.command('RCPT TO:<john.doe@acme.test>')).code).toBe(503);
    expect((await dialogue.command('MAIL FROM:<a@b.test>')).code).toBe(250);
    expect((await dialogue.command('RSET')).code).toBe(250);
    expect((await dialogue.command('RCPT TO:<john.doe@acme.test>')).code).toBe(503);
    expect((await dialogue.command('NOOP')).code).toBe(250);
    expect((await dialogue.command('WHAT')).code).toBe(502);
    dialogue.close();
  });
});

describe('catch-all', () => {
  it('accepts any local part, including random ones', async () => {
    const replies = await probe('mx.catchall.test', ['ceo@catchall.test', `zq${Date.now()}x7@catchall.test`]);
    expect(replies.map((r) => r.code)).toEqual([250, 250]);
  });
});

describe('greylisting', () => {
  it('answers 4xx to a new triplet and accepts the same triplet after the delay', async () => {
    const before = Date.now();
    const [first] = await probe('mx.greylist.test', ['alice@greylist.test']);
    expect(first.code).toBe(450);
    expect(first.text).toMatch(/^4\.2\.0 .*Greylisted/);
    const [again] = await probe('mx.greylist.test', ['alice@greylist.test']);
    if (Date.now() - before < 300) expect(again.code).toBe(450);
    await new Promise((resolve) => setTimeout(resolve, 300 - (Date.now() - before) + 20));
    const [later] = await probe('mx.greylist.test', ['alice@greylist.test']);
    expect(later.code).toBe(250);
  });
});

describe('sender blocked', () => {
  it('answers RCPT with a permanent 5.7.1 Spamhaus listing of our address', async () => {
    const [reply] = await probe('mx.blocked.test', ['bob@blocked.test']);
    expect(reply.code).toBe(554);
    expect(reply.text).toMatch(/^5\.7\.1 .*Client host \[127\.\d+\.\d+\.\d+\] blocked using zen\.spamhaus\.org/);
  });

  it('can refuse the session at the banner and close', async () => {
    const dialogue = await SmtpDialogue.open(lab.ipOf('mx.blocked-banner.test'), lab.smtpPort);
    const banner = await dialogue.reply();
    expect(banner.code).toBe(554);
    await dialogue.closed();
  });
});

describe('tarpit', () => {
  it('holds the banner back for the configured delay', async () => {
    const started = Date.now();
    const dialogue = await SmtpDialogue.open(lab.ipOf('mx.tarpit.test'), lab.smtpPort);
    expect((await dialogue.reply()).code).toBe(220);
    expect(Date.now() - started).toBeGreaterThanOrEqual(390);
    dialogue.close();
  });
});

describe('STARTTLS', () => {
  it('offers STARTTLS, upgrades with a self-signed certificate, and stops offering it inside TLS', async () => {
    const dialogue = await session('mx.tls.test');
    const ehlo = await dialogue.command('EHLO x.test');
    expect(ehlo.lines).toContain('250-STARTTLS');
    expect((await dialogue.command('STARTTLS')).code).toBe(220);
    await dialogue.startTls();
    const secureEhlo = await dialogue.command('EHLO x.test');
    expect(secureEhlo.code).toBe(250);
    expect(secureEhlo.text).not.toMatch(/STARTTLS/);
    expect((await dialogue.command('MAIL FROM:<a@b.test>')).code).toBe(250);
    expect((await dialogue.command('RCPT TO:<sec@tls-offered.test>')).code).toBe(250);
    dialogue.close();
    expect(lab.stats('mx.tls.test').tlsSessions).toBe(1);
  });

  it('requires TLS before MAIL when told to', async () => {
    const dialogue = await session('mx.tlsreq.test');
    await dialogue.command('EHLO x.test');
    const refused = await dialogue.command('MAIL FROM:<a@b.test>');
    expect(refused.code).toBe(530);
    expect(refused.text).toMatch(/^5\.7\.0 .*STARTTLS/);
    expect((await dialogue.command('STARTTLS')).code).toBe(220);
    await dialogue.startTls();
    await dialogue.command('EHLO x.test');
    expect((await dialogue.command('MAIL FROM:<a@b.test>')).code).toBe(250);
    dialogue.close();
  });

  it('discards commands pipelined after STARTTLS (RFC 3207)', async () => {
    const dialogue = await session('mx.tls.test');
    await dialogue.command('EHLO x.test');
    lab.resetStats();
    dialogue.write('STARTTLS\r\nMAIL FROM:<injected@evil.test>\r\n');
    expect((await dialogue.reply()).code).toBe(220);
    await dialogue.startTls();
    expect((await dialogue.command('MAIL FROM:<a@b.test>')).code).toBe(503);
    expect(lab.stats('mx.tls.test').commands).not.toContain('MAIL FROM:<injected@evil.test>');
    dialogue.close();
  });

  it('breaks the handshake where TLS is broken', async () => {
    const dialogue = await session('mx.tlsbroken.test');
    await dialogue.command('EHLO x.test');
    expect((await dialogue.command('STARTTLS')).code).toBe(220);
    await expect(dialogue.startTls()).rejects.toThrow();
  });
});

describe('PIPELINING and multi-line replies', () => {
  it('answers a pipelined group in order', async () => {
    const dialogue = await session('mx1.acme.test');
    const ehlo = await dialogue.command('EHLO x.test');
    expect(ehlo.lines).toContain('250-PIPELINING');
    expect(ehlo.lines.length).toBeGreaterThan(3);
    dialogue.write('MAIL FROM:<a@b.test>\r\nRCPT TO:<john.doe@acme.test>\r\nRCPT TO:<nobody@acme.test>\r\nQUIT\r\n');
    const codes = [];
    for (let i = 0; i < 4; i++) codes.push((await dialogue.reply()).code);
    expect(codes).toEqual([250, 250, 550, 221]);
    await dialogue.closed();
  });

  it('does not advertise PIPELINING where it is off', async () => {
    const dialogue = await session('mx.nopipe.test');
    const ehlo = await dialogue.command('EHLO x.test');
    expect(ehlo.text).not.toMatch(/PIPELINING/);
    dialogue.close();
  });

  it('sends Gmail-style multi-line banners and rejections', async () => {
    const dialogue = await SmtpDialogue.open(lab.ipOf('gmail-smtp-in.l.google.com'), lab.smtpPort);
    const banner = await dialogue.reply();
    expect(banner.code).toBe(220);
    expect(banner.lines.length).toBe(3);
    await dialogue.command('EHLO x.test');
    await dialogue.command('MAIL FROM:<a@b.test>');
    const rejected = await dialogue.command('RCPT TO:<no.such.person@gmail.com>');
    expect(rejected.code).toBe(550);
    expect(rejected.lines).toHaveLength(4);
    expect(rejected.lines[0]).toBe('550-5.1.1 The email account that you tried to reach does not exist. Please try');
    expect(rejected.lines[3]).toMatch(/^550 5\.1\.1 {2}https:\/\/support\.google\.com\/mail\/\?p=NoSuchUser/);
    dialogue.close();
  });
});

describe('connection cap', () => {
  it('answers 421 to sessions above maxConnections and counts the peak', async () => {
    lab.resetStats();
    const first = await session('mx.busy.test');
    const second = await session('mx.busy.test');
    const third = await SmtpDialogue.open(lab.ipOf('mx.busy.test'), lab.smtpPort);
    const reply = await third.reply();
    expect(reply.code).toBe(421);
    expect(reply.text).toMatch(/^4\.7\.0 .*too many connections/);
    await third.closed();
    const stats = lab.stats('mx.busy.test');
    expect(stats.refused).toBe(1);
    expect(stats.peakConcurrent).toBe(3);
    expect(stats.sessions).toBe(3);
    first.close();
    second.close();
  });
});

describe('recipient limit', () => {
  it("answers Outlook's 452 4.5.3 to a second recipient in one session", async () => {
    const replies = await probe('mx.picky.test', ['dave@picky.test', 'other@picky.test']);
    expect(replies.map((r) => r.code)).toEqual([250, 452]);
    expect(replies[1].text).toMatch(/^4\.5\.3 Recipients belong to multiple regions/);
  });
});

describe('latency', () => {
  it('delays the banner and every reply by the injected round trip', async () => {
    const started = Date.now();
    const dialogue = await session('mx.slow.test');
    expect(Date.now() - started).toBeGreaterThanOrEqual(145);
    const sent = Date.now();
    await dialogue.command('EHLO x.test');
    expect(Date.now() - sent).toBeGreaterThanOrEqual(145);
    dialogue.close();
  });
});

describe('HELO fallback and SMTPUTF8', () => {
  it('refuses EHLO on an old server and accepts HELO', async () => {
    const dialogue = await session('mx.helo-only.test');
    expect((await dialogue.command('EHLO x.test')).code).toBe(502);
    expect((await dialogue.command('HELO x.test')).code).toBe(250);
    expect((await dialogue.command('MAIL FROM:<a@b.test>')).code).toBe(250);
    expect((await dialogue.command('RCPT TO:<frank@helo-only.test>')).code).toBe(250);
    dialogue.close();
  });

  it('accepts a non-ASCII local part only where SMTPUTF8 is offered', async () => {
    const [refused] = await probe('mx1.acme.test', ['josé@acme.test']);
    expect(refused.code).toBe(553);
    const dialogue = await session('mx.utf8.test');
    const ehlo = await dialogue.command('EHLO x.test');
    expect(ehlo.lines).toContain('250-SMTPUTF8');
    await dialogue.command('MAIL FROM:<a@b.test> SMTPUTF8');
    expect((await dialogue.command('RCPT TO:<josé@utf8.test>')).code).toBe(250);
    dialogue.close();
  });
});

describe('dead and failing hosts', () => {
  it('refuses connections to a host with an address but no server', async () => {
    await expect(SmtpDialogue.open(lab.ipOf('mx.dead.test'), lab.smtpPort)).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
    await expect(SmtpDialogue.open(lab.ipOf('mx-primary.failover.test'), lab.smtpPort)).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
    const [reply] = await probe('mx-backup.failover.test', ['henry@failover.test']);
    expect(reply.code).toBe(250);
  });

  it('serves the implicit MX of a domain that has only an A record', async () => {
    const [reply] = await probe('mx.implicit.test', ['ivan@implicit.test']);
    expect(reply.code).toBe(250);
  });
});

describe('statistics for hygiene assertions', () => {
  it('records every command as received and flags bare line endings and NULs', async () => {
    lab.resetStats();
    const dialogue = await session('mx1.acme.test');
    await dialogue.command('EHLO x.test');
    dialogue.write('MAIL FROM:<a@b.test>\nRCPT TO:<x\0y@acme.test>\r\n');
    await dialogue.reply();
    await dialogue.reply();
    dialogue.close();
    const stats = lab.stats('mx1.acme.test');
    expect(stats.commands).toEqual(['EHLO x.test', 'MAIL FROM:<a@b.test>', 'RCPT TO:<x\0y@acme.test>']);
    expect(stats.violations).toEqual([expect.stringMatching(/^bare LF/), expect.stringMatching(/^NUL/)]);
  });

  it('shows clean dialogues as violation-free', async () => {
    lab.resetStats();
    await probe('mx1.acme.test', ['jane@acme.test']);
    expect(lab.stats('mx1.acme.test').violations).toEqual([]);
    expect(lab.stats('mx1.acme.test').commands).toEqual([
      'EHLO prober.mailguard.test',
      'MAIL FROM:<verify@mailguard.test>',
      'RCPT TO:<jane@acme.test>',
      'QUIT',
    ]);
  });
});

describe('hostile servers', () => {
  const HOSTILE = 'mx.hostile.test';
  /** Long enough for any reply on loopback to have arrived: what has not come by then is not coming. */
  const QUIET_MS = 300;

  /** The next reply, 'closed' when the server hung up, or null when nothing came within QUIET_MS. */
  function replyWithin(dialogue: SmtpDialogue): Promise<Reply | 'closed' | null> {
    return Promise.race([
      dialogue.reply().catch(() => 'closed' as const),
      new Promise<null>((resolve) => setTimeout(() => resolve(null), QUIET_MS)),
    ]);
  }

  afterEach(() =>
    lab.smtp(HOSTILE).behave({ silent: undefined, stallAt: undefined, dropAfter: undefined, vanishAt: undefined }),
  );

  it('a silent server accepts the connection and never writes a byte, whatever it is sent', async () => {
    lab.smtp(HOSTILE).behave({ silent: true });
    lab.resetStats();
    const dialogue = await SmtpDialogue.open(lab.ipOf(HOSTILE), lab.smtpPort);
    expect(await replyWithin(dialogue)).toBeNull();
    dialogue.write('EHLO x.test\r\n');
    expect(await replyWithin(dialogue)).toBeNull();
    expect(lab.stats(HOSTILE)).toMatchObject({ sessions: 1, active: 1, replyBatches: 0 });
    dialogue.close();
  });

  it.each([
    ['ehlo', [], 'EHLO x.test', /^250-mx\.hostile\.test\r\n250-/],
    ['mail', ['EHLO x.test'], 'MAIL FROM:<a@b.test>', /^250 2\.1$/],
    ['rcpt', ['EHLO x.test', 'MAIL FROM:<a@b.test>'], 'RCPT TO:<kim@hostile.test>', /^250 2\.1$/],
  ] as const)(
    'a server stalling at %s writes half of that reply, then nothing; turned good, it answers the next session',
    async (step, before, command, cut) => {
      lab.smtp(HOSTILE).behave({ stallAt: step });
      const dialogue = await session(HOSTILE);
      for (const line of before) expect((await dialogue.command(line)).code).toBe(250);
      dialogue.write(`${command}\r\n`);
      expect(await dialogue.partial()).toMatch(cut);
      expect(await replyWithin(dialogue)).toBeNull();
      dialogue.write('NOOP\r\n');
      expect(await replyWithin(dialogue)).toBeNull();
      dialogue.close();
      lab.smtp(HOSTILE).behave({ stallAt: undefined });
      const [reply] = await probe(HOSTILE, ['kim@hostile.test']);
      expect(reply.code).toBe(250);
    },
  );

  it('a connection vanishing at RSET answers nothing from then on, and is not closed either', async () => {
    lab.smtp(HOSTILE).behave({ vanishAt: 'rset' });
    lab.resetStats();
    const dialogue = await session(HOSTILE);
    expect((await dialogue.command('EHLO x.test')).code).toBe(250);
    dialogue.write('RSET\r\n');
    expect(await replyWithin(dialogue)).toBeNull();
    // Null, not 'closed': the connection is still there.
    dialogue.write('NOOP\r\n');
    expect(await replyWithin(dialogue)).toBeNull();
    expect(lab.stats(HOSTILE).sessions).toBe(1);
    dialogue.close();
  });

  it('a server dropping after RCPT answers the pipelined MAIL, then closes the connection without a reply', async () => {
    lab.smtp(HOSTILE).behave({ dropAfter: 'rcpt' });
    const dialogue = await session(HOSTILE);
    expect((await dialogue.command('EHLO x.test')).code).toBe(250);
    dialogue.write('MAIL FROM:<a@b.test>\r\nRCPT TO:<kim@hostile.test>\r\n');
    expect((await dialogue.reply()).code).toBe(250);
    await expect(dialogue.reply()).rejects.toThrow(/closed before a reply/);
    await dialogue.closed();
  });
});

describe('behaviour per client address', () => {
  const EGRESS_MX = 'mx.egress.test';

  afterEach(() => lab.smtp(EGRESS_MX).behave({ clients: EGRESS_CLIENTS }));

  /** A dialogue from one of the prober's egresses: the client bound to that source address. */
  function from(egress: string): Promise<SmtpDialogue> {
    return SmtpDialogue.open(lab.ipOf(EGRESS_MX), lab.smtpPort, egress);
  }

  it('answers each client by its own entry: one egress is refused at the banner, another is served', async () => {
    const blocked = await from('127.250.0.2');
    expect(await blocked.reply()).toMatchObject({ code: 554, text: '5.7.1 127.250.0.2 is listed' });
    await blocked.closed();
    const served = await from('127.250.0.1');
    expect((await served.reply()).code).toBe(220);
    expect((await served.command('EHLO x.test')).code).toBe(250);
    expect((await served.command('MAIL FROM:<a@b.test>')).code).toBe(250);
    expect((await served.command('RCPT TO:<lee@egress.test>')).code).toBe(250);
    served.close();
  });

  it('hangs up on a client at once, without a banner, and counts the session', async () => {
    lab.resetStats();
    const dropped = await from('127.250.0.3');
    await expect(dropped.reply()).rejects.toThrow(/closed before a reply/);
    await dropped.closed();
    expect(lab.stats(EGRESS_MX).replyBatches).toBe(0);
    expect(lab.stats(EGRESS_MX).byClient['127.250.0.3']).toMatchObject({ sessions: 1, peakConcurrent: 1 });
  });

  it('applies a client entry given by behave() to an open session from its next command, and to no other client', async () => {
    const open = await from('127.250.0.4');
    expect((await open.reply()).code).toBe(220);
    expect((await open.command('EHLO x.test')).code).toBe(250);
    expect((await open.command('MAIL FROM:<a@b.test>')).code).toBe(250);
    lab.smtp(EGRESS_MX).behave({ clients: { ...EGRESS_CLIENTS, '127.250.0.4': { blockSender: 'rcpt' } } });
    const refused = await open.command('RCPT TO:<lee@egress.test>');
    expect(refused.code).toBe(554);
    expect(refused.text).toMatch(/Client host \[127\.250\.0\.4\] blocked/);
    open.close();
    const [other] = await probe(EGRESS_MX, ['lee@egress.test']);
    expect(other.code).toBe(250);
  });

  it('counts sessions per client beside the totals; resetStats zeroes them but for the sessions still open', async () => {
    lab.resetStats();
    const dialogues = await Promise.all(['127.250.0.5', '127.250.0.5', '127.250.0.6'].map(from));
    await Promise.all(dialogues.map((dialogue) => dialogue.reply()));
    expect(lab.stats(EGRESS_MX)).toMatchObject({
      sessions: 3,
      byClient: {
        '127.250.0.5': { sessions: 2, active: 2, peakConcurrent: 2 },
        '127.250.0.6': { sessions: 1, active: 1, peakConcurrent: 1 },
      },
    });
    lab.resetStats();
    expect(lab.stats(EGRESS_MX).byClient).toMatchObject({
      '127.250.0.5': { sessions: 0, active: 2, peakConcurrent: 0 },
      '127.250.0.6': { sessions: 0, active: 1, peakConcurrent: 0 },
    });
    dialogues.forEach((dialogue) => dialogue.close());
  });
});
