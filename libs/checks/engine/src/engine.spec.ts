import { loadConfig } from '@mailguard/config';
import { createResolver } from '@mailguard/dns';
import { typoOf } from '@mailguard/email';
import { outboundGet, type HttpGet } from '@mailguard/lookups';
import { startLab, type Lab } from '../../../../test/lab';
import { loadScenario } from '../../../../test/lab/scenario';
import { MemoryTtlStore } from './domain-cache';
import { createEngine, type VerificationEngine } from './engine';
import { createOutbound } from '@mailguard/net';

/** The engine through the real sockets of the mail lab: every verdict row and every behaviour. */
let lab: Lab;
let engine: VerificationEngine;

function engineFor(extra: Record<string, string> = {}): VerificationEngine {
  return createEngine(
    loadConfig({
      ...lab.env,
      SMTP_HELO_NAME: 'probe.mailguard.test',
      SMTP_TIMEOUT_MS: '2000',
      GREYLIST_RETRY_SECONDS: '300',
      ...extra,
    }),
  );
}

/**
 * Issue 32's reply dialects, each on a server of its own (a limit or a block cools its host): the
 * mailbox-level ones on one server by local part, the others as the server's answer to every RCPT.
 */
const DIALECT_MAILBOXES: Record<string, string> = {
  locked: '550 5.5.0 Le compte du destinataire est bloque. The recipient account isblocked. LPN007_426',
  suspended: '550 5.0.0 Recipient suspend the service',
  notlocal: '551 User not local; please try <other@example.net>',
  rejected: '550 Rejected',
  nodomain: '554 The mail could not be delivered to the recipient because the domain is not reachable.',
};
const DIALECT_SERVERS: Record<string, string> = {
  denied: '550 Access denied',
  slower: '451 4.7.1 <{host}[{ip}]>: Client host rejected: Please try again slower',
  hourly: '550 {ip} has sent to too many recipients this hour. IB607',
  notls: '550 5.7.1 Remote server does not support TLS',
};

beforeAll(async () => {
  const scenario = loadScenario();
  scenario.servers!['mx.greylist.test'].greylistMs = 400;
  scenario.servers!['mx.dialects.test'] = { tls: 'none' };
  scenario.domains!['dialects.test'] = {
    mx: [{ host: 'mx.dialects.test', priority: 10 }],
    mailboxes: DIALECT_MAILBOXES,
  };
  for (const [name, reply] of Object.entries(DIALECT_SERVERS)) {
    scenario.servers![`mx.${name}.dialects.test`] = { tls: 'none', replies: { accepted: reply } };
    scenario.domains![`${name}.dialects.test`] = {
      mx: [{ host: `mx.${name}.dialects.test`, priority: 10 }],
      mailboxes: { someone: 'ok' },
    };
  }
  // aol.com and msn.com, names too short for a key beside the right one to be a sure slip: sol.com
  // is a company's domain that takes mail, msm.com one that takes none, aok.com does not exist.
  scenario.servers!['mx-aol.mail.gm0.yahoodns.net'] = {};
  scenario.servers!['msn-com.olc.protection.outlook.com'] = {};
  scenario.servers!['mx.sol.com'] = { tls: 'none' };
  scenario.domains!['aol.com'] = { mx: [{ host: 'mx-aol.mail.gm0.yahoodns.net', priority: 10 }] };
  scenario.domains!['sol.com'] = { mx: [{ host: 'mx.sol.com', priority: 10 }], mailboxes: { jane: 'ok' } };
  scenario.domains!['msn.com'] = { mx: [{ host: 'msn-com.olc.protection.outlook.com', priority: 2 }] };
  scenario.domains!['msm.com'] = { txt: ['v=spf1 -all'] };
  lab = await startLab(scenario);
  engine = engineFor();
});

afterAll(() => lab.stop());

describe('docs/api.md#verdict-rules, row by row', () => {
  it.each([
    ['john.doe..x@acme.test', 'invalid', 'invalid', 'invalid_syntax'],
    ['someone@no-such-domain.test', 'invalid', 'invalid', 'invalid_domain'],
    ['someone@nullmx.test', 'invalid', 'invalid', 'no_mx'],
    ['someone@nomail.test', 'invalid', 'invalid', 'no_mx'],
    ['nobody@acme.test', 'invalid', 'invalid', 'rejected_email'],
    ['gone@acme.test', 'invalid', 'invalid', 'disabled'],
    ['inactive.user@acme.test', 'invalid', 'invalid', 'disabled'],
    ['anyone@catchall.test', 'risky', 'risky', 'catch_all'],
    ['temp@mailinator.com', 'risky', 'risky', 'disposable'],
    ['full.box@acme.test', 'risky', 'risky', 'full_inbox'],
    ['temp.full@acme.test', 'risky', 'risky', 'full_inbox'],
    ['admin@acme.test', 'risky', 'risky', 'role'],
    ['bob@blocked.test', 'risky', 'unknown', 'unknown'],
    ['john.doe@acme.test', 'valid', 'safe', 'accepted_email'],
  ])('%s → %s / %s / %s', async (email, status, reachable, reason) => {
    const result = await engine.verify(email);
    expect({ status: result.status, reachable: result.reachable, reason: result.reason }).toEqual({
      status,
      reachable,
      reason,
    });
    expect(result.isValid).toBe(status !== 'invalid');
    expect(result.confidence === null).toBe(reason !== 'catch_all');
  });

  it('probes disposable domains like any other: a rejected mailbox there is rejected_email', async () => {
    const result = await engine.verify('nobody@mailinator.com');
    expect(result).toMatchObject({ status: 'invalid', reason: 'rejected_email', isDisposable: true });
  });
});

describe('docs/api.md#substatus: subStatus from what the checks saw', () => {
  it.each([
    ['john.doe..x@acme.test', 'invalid_syntax', 'bad_local_part'],
    [`${'a'.repeat(65)}@acme.test`, 'invalid_syntax', 'too_long'],
    ['jo\u0000hn@acme.test', 'invalid_syntax', 'control_characters'],
    ['john@acme..test', 'invalid_syntax', 'bad_domain'],
    ['someone@nullmx.test', 'no_mx', 'null_mx'],
    ['nobody@acme.test', 'rejected_email', 'no_such_user'],
    ['gone@acme.test', 'disabled', 'disabled'],
    ['someone@greylist.test', 'unknown', 'greylisted'],
    ['bob@blocked.test', 'unknown', 'sender_blocked'],
    ['someone@tarpit.test', 'unknown', 'timeout'],
    ['someone@deadmx.test', 'unknown', 'mx_unreachable'],
    ['someone@servfail.test', 'unknown', 'dns_error'],
    ['someone@tls-broken.test', 'unknown', 'tls_failed'],
    ['user@[192.0.2.1]', 'unknown', 'address_literal'],
    ['john.doe@acme.test', 'accepted_email', null],
    ['anyone@catchall.test', 'catch_all', null],
  ])('%j → %s / %s', async (email, reason, subStatus) => {
    expect(await engine.verify(email)).toMatchObject({ reason, subStatus });
  });
});

describe('reply dialects of issue 32: reason and subStatus', () => {
  it.each([
    ['locked@dialects.test', 'invalid', 'disabled', 'disabled'],
    ['suspended@dialects.test', 'invalid', 'disabled', 'disabled'],
    ['notlocal@dialects.test', 'invalid', 'rejected_email', 'no_such_user'],
    ['rejected@dialects.test', 'invalid', 'rejected_email', 'no_such_user'],
    ['nodomain@dialects.test', 'invalid', 'rejected_email', 'no_such_user'],
    ['someone@denied.dialects.test', 'risky', 'unknown', 'sender_blocked'],
    ['someone@slower.dialects.test', 'risky', 'unknown', 'rate_limited'],
    ['someone@hourly.dialects.test', 'risky', 'unknown', 'rate_limited'],
    ['someone@notls.dialects.test', 'risky', 'unknown', 'tls_failed'],
  ])('%s → %s / %s / %s', async (email, status, reason, subStatus) => {
    // An engine of its own: a block of us leaves the egress out for the engine's later probes.
    expect(await engineFor().verify(email)).toMatchObject({ status, reason, subStatus });
  });
});

describe('the result object', () => {
  it('carries every field of docs/api.md#the-result-object for an accepted address', async () => {
    const result = await engine.verify('  John.Doe@ACME.test ');
    expect(result).toMatchObject({
      email: 'John.Doe@acme.test',
      domain: 'acme.test',
      status: 'valid',
      confidence: null,
      reason: 'accepted_email',
      isValid: true,
      reachable: 'safe',
      syntax: true,
      smtp: { hostExists: true, deliverable: true, catchAll: false, fullInbox: false, disabled: false },
      isFree: false,
      isRole: false,
      isDisposable: false,
      hasGravatar: true,
      suggestion: null,
      cached: false,
      checks: {
        syntax: { valid: true, localPart: 'John.Doe', domain: 'acme.test' },
        domain: { exists: true },
        mx: {
          valid: true,
          records: [{ exchange: 'mx1.acme.test', priority: 10 }],
          nullMx: false,
          implicit: false,
          provider: null,
        },
        smtp: { checked: true, code: 250, enhancedCode: '2.1.5', message: 'Ok' },
        disposable: { value: false },
        role: { value: false },
        catchAll: { value: false, confidence: null },
        domainAge: { createdAt: '1998-04-12T00:00:00Z' },
        authentication: {
          spf: { present: true, record: 'v=spf1 mx -all' },
          dkim: { present: true, selectors: ['google'] },
          dmarc: { present: true, policy: 'reject' },
        },
      },
    });
    expect(result.score).toBeGreaterThanOrEqual(90);
    expect(result.checks.domainAge.ageDays).toBeGreaterThan(10_000);
    expect(Date.parse(result.verifiedAt)).not.toBeNaN();
  });

  it('keeps scores in line with the verdict: accepted high, rejected near 0, unknown between', async () => {
    const [accepted, rejected, unknown] = await Promise.all(
      ['jane@acme.test', 'nobody@acme.test', 'bob@blocked.test'].map((email) => engine.verify(email)),
    );
    expect(accepted.score).toBeGreaterThan(unknown.score);
    expect(unknown.score).toBeGreaterThan(rejected.score);
    expect(rejected.score).toBeLessThanOrEqual(5);
  });

  it('reports free providers, typo suggestions and the provider behind the MX', async () => {
    const gmail = await engine.verify('real.person@gmail.com');
    expect(gmail).toMatchObject({
      status: 'valid',
      isFree: true,
      checks: { mx: { provider: 'google' }, smtp: { code: 250 } },
    });
    const typo = await engine.verify('john@gmial.com');
    expect(typo).toMatchObject({ suggestion: 'john@gmail.com', isDisposable: false, isFree: false });
  });

  it('suggests the provider for typos in the name and the ending, but not a throwaway service', async () => {
    expect(await engine.verify('jane@hotmail.cm')).toMatchObject({ suggestion: 'jane@hotmail.com', isFree: false });
    expect(await engine.verify('jane@gmail.con')).toMatchObject({ suggestion: 'jane@gmail.com', isFree: false });
    // A single-label domain passes syntax and DNS finds no such domain; the left-out dot is still named.
    expect(await engine.verify('jane@gmailcom')).toMatchObject({
      reason: 'invalid_domain',
      suggestion: 'jane@gmail.com',
    });
    expect(await engine.verify('x@yopmail.com')).toMatchObject({ suggestion: null, isDisposable: true });
    expect((await engine.verify('jane@acme.test')).suggestion).toBeNull();
  });

  it('suggests nothing when the provider does not receive mail as DNS sees it', async () => {
    // libero.ti is a typo of libero.it, which the lab's DNS does not know.
    expect(typoOf('libero.ti')).toEqual({ provider: 'libero.it', sure: true });
    expect((await engine.verify('mario@libero.ti')).suggestion).toBeNull();
  });

  it('suggests a loose typo only when the typed domain takes no mail', async () => {
    for (const domain of ['aok.com', 'sol.com']) expect(typoOf(domain)).toEqual({ provider: 'aol.com', sure: false });
    expect(typoOf('msm.com')).toEqual({ provider: 'msn.com', sure: false });
    expect(await engine.verify('jane@aok.com')).toMatchObject({ reason: 'invalid_domain', suggestion: 'jane@aol.com' });
    expect(await engine.verify('jane@sol.com')).toMatchObject({ status: 'valid', suggestion: null });
    expect(await engine.verify('jane@msm.com')).toMatchObject({ reason: 'no_mx', suggestion: 'jane@msn.com' });
    const inspections = await engine.inspectGroup(['a@aok.com', 'b@sol.com'], { deadlineAt: Date.now() + 5_000 });
    expect(inspections.map((inspection) => inspection.suggestion)).toEqual(['a@aol.com', null]);
    // Without DNS nothing tells a loose typo from a company's domain.
    expect(engine.concludeLocally('jane@aok.com').suggestion).toBeNull();
  });

  it('suggests in a list group too', async () => {
    const inspections = await engine.inspectGroup(['a@gmial.com', 'b@gmaill.com', 'c@libero.ti', 'd@hotmailcom'], {
      deadlineAt: Date.now() + 5_000,
    });
    expect(inspections.map((inspection) => inspection.suggestion)).toEqual([
      'a@gmail.com',
      'b@gmail.com',
      null,
      'd@hotmail.com',
    ]);
  });

  it('answers without a suggestion when only the local lists could be read (no DNS: no suggestion)', () => {
    expect(engine.concludeLocally('john@gmial.com').suggestion).toBeNull();
  });

  it('reads multi-line Gmail rejections', async () => {
    const result = await engine.verify('no.one@gmail.com');
    expect(result).toMatchObject({ reason: 'rejected_email', checks: { smtp: { code: 550, enhancedCode: '5.1.1' } } });
    expect(result.checks.smtp.message).toMatch(/^The email account that you tried to reach does not exist/);
    expect((await engine.verify('suspended@gmail.com')).reason).toBe('disabled');
    expect((await engine.verify('hoarder@gmail.com')).reason).toBe('full_inbox');
  });
});

describe('lab behaviours', () => {
  it('throws when the domain cache cannot be read (the job is retried), never answering unknown for it', async () => {
    const down = new MemoryTtlStore<never>();
    down.get = () => Promise.reject(new Error('cache unreachable'));
    const config = loadConfig({ ...lab.env, SMTP_HELO_NAME: 'probe.mailguard.test' });
    const broken = createEngine(config, { domainCache: down });
    await expect(broken.inspect('john.doe@acme.test', { deadlineAt: Date.now() + 5_000 })).rejects.toThrow(
      'cache unreachable',
    );
  });

  it('greylisting: unknown when the retry does not fit the deadline, accepted when it does', async () => {
    expect((await engine.verify('alice@greylist.test')).reachable).toBe('unknown');
    const patient = engineFor({ GREYLIST_RETRY_SECONDS: '1' });
    expect((await patient.verify('alice@greylist.test')).reason).toBe('accepted_email');
  });

  it('sender blocked at RCPT or at the banner is unknown, never rejected, and the host is then left alone', async () => {
    const fresh = engineFor();
    for (const email of ['bob@blocked.test', 'bob@blocked-banner.test']) {
      const result = await fresh.verify(email);
      expect(result).toMatchObject({ status: 'risky', reachable: 'unknown', reason: 'unknown' });
      expect(result.checks.smtp.checked).toBe(false);
      expect(result.checks.smtp.code).toBe(554);
    }
    lab.resetStats();
    expect((await fresh.verify('bob@blocked.test')).reachable).toBe('unknown');
    expect(lab.stats('mx.blocked.test').sessions).toBe(0);
  });

  it('STARTTLS: offered and required are negotiated; a broken required handshake is unknown', async () => {
    lab.resetStats();
    expect((await engine.verify('sec@tls-offered.test')).reason).toBe('accepted_email');
    expect((await engine.verify('sec@tls-required.test')).reason).toBe('accepted_email');
    expect(lab.stats('mx.tls.test').tlsSessions).toBe(1);
    expect(lab.stats('mx.tlsreq.test').tlsSessions).toBe(1);
    expect((await engine.verify('sec@tls-broken.test')).reachable).toBe('unknown');
  });

  it('a probe begun from the early inspection (mail hosts only) adds catch-all to the cached facts, keeping the rest', async () => {
    const fresh = engineFor();
    const deadlineAt = Date.now() + 10_000;
    const { early, full } = fresh.inspectInSteps('john.doe@acme.test', { deadlineAt });
    const first = await early;
    expect(first.facts?.authentication.spf.present).toBe(false);
    await full;
    await fresh.probe({ inspections: [first], deadlineAt });
    expect((await fresh.inspect('jane@acme.test', { deadlineAt })).facts).toMatchObject({
      catchAll: false,
      authentication: { spf: { present: true }, dmarc: { policy: 'reject' } },
      age: { createdAt: '1998-04-12T00:00:00Z' },
    });
  });

  it("keeps the catch-all that a probe learnt before the domain's other look-ups were done", async () => {
    const config = loadConfig({ ...lab.env, SMTP_HELO_NAME: 'probe.mailguard.test', SMTP_TIMEOUT_MS: '2000' });
    const outbound = outboundGet(createOutbound(config));
    // RDAP answers only once the probe is over: the domain's facts are cached after the probe ends.
    let answerRdap = () => undefined as void;
    const rdapHeld = new Promise<void>((resolve) => (answerRdap = resolve));
    const http: HttpGet = async (url, options) => {
      if (url.includes('/domain/')) await rdapHeld;
      return outbound(url, options);
    };
    const fresh = createEngine(config, { http });
    const deadlineAt = Date.now() + 10_000;
    const { early, full } = fresh.inspectInSteps('peter@catchall.test', { deadlineAt });
    const [outcome] = await fresh.probe({ inspections: [await early], deadlineAt });
    expect(outcome.probe.catchAll).toBe(true);
    answerRdap();
    expect((await full).facts?.age.createdAt).not.toBeNull();

    lab.resetStats();
    const next = await fresh.verify('maria.garcia@catchall.test');
    expect(next.smtp.catchAll).toBe(true);
    // Known: no made-up address is asked again.
    expect(lab.stats('mx.catchall.test').commands.filter((command) => command.startsWith('RCPT'))).toEqual([
      'RCPT TO:<maria.garcia@catchall.test>',
    ]);
  });

  it('STARTTLS with a host seen before resumes the TLS session it gave last time', async () => {
    // A session of its own per check: none kept open for the next.
    const fresh = engineFor({ SMTP_SESSION_IDLE_MS: '0' });
    lab.resetStats();
    expect((await fresh.verify('sec@tls-offered.test')).reason).toBe('accepted_email');
    expect((await fresh.verify('sec@tls-offered.test')).reason).toBe('accepted_email');
    expect(lab.stats('mx.tls.test')).toMatchObject({ tlsSessions: 2, tlsResumed: 1 });
  });

  it('fails over from a dead primary MX to the backup', async () => {
    const result = await engine.verify('henry@failover.test');
    expect(result.reason).toBe('accepted_email');
  });

  it('dead MX hosts and DNS failures are unknown; dangling MX hosts mean no mail', async () => {
    expect((await engine.verify('a@deadmx.test')).reachable).toBe('unknown');
    expect((await engine.verify('a@dangling.test')).reason).toBe('no_mx');
    const servfail = await engine.verify('a@servfail.test');
    expect(servfail).toMatchObject({ reachable: 'unknown', checks: { domain: { exists: null } } });
    expect((await engine.verify('a@timeout.test')).reachable).toBe('unknown');
    expect((await engine.verify('jane@slowdns.test')).reason).toBe('accepted_email');
  });

  it('uses the implicit MX of a domain with only an A record', async () => {
    const result = await engine.verify('ivan@implicit.test');
    expect(result).toMatchObject({ reason: 'accepted_email', checks: { mx: { implicit: true, records: [] } } });
  });

  it('falls back to HELO, works without PIPELINING, and through injected latency', async () => {
    expect((await engine.verify('frank@helo-only.test')).reason).toBe('accepted_email');
    expect((await engine.verify('gina@nopipe.test')).reason).toBe('accepted_email');
    expect((await engine.verify('nobody@nopipe.test')).reason).toBe('rejected_email');
    expect((await engine.verify('erin@slow.test')).reason).toBe('accepted_email');
  });

  it('probes non-ASCII local parts only where SMTPUTF8 is offered', async () => {
    expect((await engine.verify('josé@utf8.test')).reason).toBe('accepted_email');
    expect((await engine.verify('josé@acme.test')).reachable).toBe('unknown');
  });

  it('never probes an address literal', async () => {
    lab.resetStats();
    const result = await engine.verify('user@[127.0.0.1]');
    expect(result).toMatchObject({ syntax: true, status: 'risky', reachable: 'unknown' });
  });

  it('turns a tarpit into unknown at the check deadline instead of hanging', async () => {
    const hurried = engineFor({ CHECK_DEADLINE_MS: '600', SMTP_TIMEOUT_MS: '30000' });
    const result = await hurried.verify('slow@tarpit.test');
    expect(result.reachable).toBe('unknown');
  });

  it('reads 421 too many connections as unknown', async () => {
    const held = await Promise.all(
      [1, 2].map(() =>
        import('node:net').then(({ connect }) => connect({ host: lab.ipOf('mx.busy.test'), port: lab.smtpPort })),
      ),
    );
    await Promise.all(held.map((socket) => new Promise((resolve) => socket.once('data', resolve))));
    const result = await engine.verify('carol@busy.test');
    expect(result.reachable).toBe('unknown');
    held.forEach((socket) => socket.destroy());
  });

  it('probes through a SOCKS5 proxy when SMTP_PROXY is set', async () => {
    const proxied = engineFor({ SMTP_PROXY: lab.socks.url });
    const result = await proxied.verify('jane@acme.test');
    expect(result.reason).toBe('accepted_email');
    expect(lab.socks.connects).toContain(`${lab.ipOf('mx1.acme.test')}:${lab.smtpPort}`);
    const refused = engineFor({ SMTP_PROXY: lab.socks.url.replace('lab-secret', 'wrong') });
    expect((await refused.verify('jane@acme.test')).reachable).toBe('unknown');
  });

  it('keeps to SMTP_MX_CONCURRENCY sessions per MX host, so a server capped at 2 never answers 421', async () => {
    lab.resetStats();
    const polite = engineFor({ SMTP_MX_CONCURRENCY: '2' });
    const results = await Promise.all(Array.from({ length: 10 }, () => polite.verify('carol@busy.test')));
    expect(results.map((result) => result.reason)).toEqual(Array(10).fill('accepted_email'));
    expect(lab.stats('mx.busy.test').peakConcurrent).toBeLessThanOrEqual(2);
    expect(lab.stats('mx.busy.test').refused).toBe(0);
  });

  it('refuses MX hosts, RDAP and avatar services on private or loopback addresses unless ALLOW_PRIVATE_MX=true', async () => {
    lab.resetStats();
    const strict = engineFor({ ALLOW_PRIVATE_MX: 'false' });
    const asked = lab.http.requests;
    const result = await strict.verify('jane@acme.test');
    expect(result.reachable).toBe('unknown');
    expect(result.checks.domainAge).toEqual({ createdAt: null, ageDays: null });
    expect(lab.stats('mx1.acme.test').sessions).toBe(0);
    expect(lab.http.requests).toBe(asked);
  });
});

describe('catch-all', () => {
  it('probes the target first and the made-up address after it, in one session', async () => {
    lab.resetStats();
    const fresh = engineFor();
    await fresh.verify('peter@catchall.test');
    const rcpts = lab.stats('mx.catchall.test').commands.filter((command) => command.startsWith('RCPT'));
    expect(rcpts[0]).toBe('RCPT TO:<peter@catchall.test>');
    expect(rcpts).toHaveLength(2);
    expect(lab.stats('mx.catchall.test').sessions).toBe(1);
  });

  it('asks a server that refuses a second recipient in a session of its own, and keeps the real answer', async () => {
    lab.resetStats();
    const fresh = engineFor();
    const result = await fresh.verify('dave@picky.test');
    expect(result).toMatchObject({ reason: 'accepted_email', smtp: { catchAll: false } });
    expect(lab.stats('mx.picky.test').sessions).toBe(2);
  });

  it('reports a provider that accepts every recipient (Yahoo) as catch-all, never safe', async () => {
    const result = await engine.verify('real.person@yahoo.com');
    expect(result).toMatchObject({ status: 'risky', reason: 'catch_all', checks: { mx: { provider: 'yahoo' } } });
    expect(result.confidence).toEqual(expect.any(Number));
  });

  it('scores real mailboxes above made-up ones on the lab catch-all domain', async () => {
    const real = ['ceo', 'peter', 'john.smith', 'maria.garcia', 'lisa.wong', 'jsmith'];
    const madeUp = ['xk29qz8w', 'qwrtzplkm', 'a8f3c9e1b2', 'zzkq0912xx', 'user84736251', 'bcdfghjkl'];
    const confidence = async (local: string) => (await engine.verify(`${local}@catchall.test`)).confidence as number;
    const realScores = await Promise.all(real.map(confidence));
    const madeUpScores = await Promise.all(madeUp.map(confidence));
    expect(Math.min(...realScores)).toBeGreaterThan(Math.max(...madeUpScores));
    const explained = await engine.verify('john.smith@catchall.test');
    expect(explained.checks.catchAll.signals?.map((s) => s.signal)).toEqual(
      expect.arrayContaining(['name_pattern', 'gravatar']),
    );
  });

  it('caches the domain: a second address at it needs no new DNS look-ups and no made-up probe', async () => {
    const fresh = engineFor();
    await fresh.verify('peter@catchall.test');
    lab.resetStats();
    const queries = lab.dns.queries;
    await fresh.verify('maria.garcia@catchall.test');
    expect(lab.dns.queries).toBe(queries);
    expect(lab.stats('mx.catchall.test').commands.filter((command) => command.startsWith('RCPT'))).toEqual([
      'RCPT TO:<maria.garcia@catchall.test>',
    ]);
  });
});

describe('inspecting in two steps (a single check)', () => {
  it('lets the mail hosts be handed on before the look-ups SMTP does not need begin, and asks no avatar without a mail host', async () => {
    const config = loadConfig({ ...lab.env, SMTP_HELO_NAME: 'probe.mailguard.test' });
    const resolver = createResolver({ servers: config.dns.servers });
    const asked: string[] = [];
    const fetched: string[] = [];
    const get = outboundGet(createOutbound(config));
    const http: HttpGet = (url, options) => {
      fetched.push(url);
      return get(url, options);
    };
    const fresh = createEngine(config, {
      http,
      resolver: { ...resolver, resolveTxt: (name) => (asked.push(name), resolver.resolveTxt(name)) },
    });
    const deadlineAt = Date.now() + 10_000;
    const { early, full } = fresh.inspectInSteps('john.doe@acme.test', { deadlineAt });
    expect((await early).needsProbe).toBe(true);
    // What the awaiting stage does next (queueing the SMTP job) comes before any of them.
    expect({ asked, fetched }).toEqual({ asked: [], fetched: [] });
    const inspection = await full;
    expect(asked).toContain('acme.test');
    expect(fetched).toEqual(expect.arrayContaining([expect.stringContaining('/avatar/')]));
    expect(inspection.facts?.authentication.spf.present).toBe(true);

    fetched.length = 0;
    const nowhere = fresh.inspectInSteps('someone@no-such-domain.test', { deadlineAt });
    expect((await nowhere.full).needsProbe).toBe(false);
    expect(fetched.filter((url) => url.includes('/avatar/'))).toEqual([]);
  });
});

describe('inspecting a group (a list feed)', () => {
  it('inspects each address as a single inspection does, with DNS asked once for the domain and avatars where it concludes', async () => {
    const emails = ['john.doe@acme.test', 'nobody@acme.test', 'not an address', 'jane@acme.test'];
    const deadlineAt = Date.now() + 10_000;
    const fresh = engineFor();
    const queries = lab.dns.queries;
    const fed = await fresh.inspectGroup(emails, { deadlineAt });
    const once = lab.dns.queries - queries;
    expect(fed.map((inspection) => inspection.gravatar)).toEqual([null, null, null, null]);
    const grouped = await fresh.withAvatars(fed);
    const single = await Promise.all(emails.map((email) => engineFor().inspect(email, { deadlineAt })));
    expect(grouped).toEqual(single);
    expect(grouped.map((inspection) => inspection.gravatar)).toContain(true);
    expect(grouped.map((inspection) => inspection.needsProbe)).toEqual([true, true, false, true]);
    // The group's look-ups are those of its one domain: a single inspection at a fresh engine asks as many.
    const queriesBefore = lab.dns.queries;
    await engineFor().inspect('john.doe@acme.test', { deadlineAt });
    expect(once).toBe(lab.dns.queries - queriesBefore);
  });
});

describe('typo suggestions and DNS', () => {
  it('asks whether a provider receives mail once, not for every typo of it', async () => {
    const fresh = engineFor();
    const deadlineAt = Date.now() + 10_000;
    const first = await fresh.inspectGroup(['a@gmial.com', 'b@gmial.com'], { deadlineAt });
    expect(first.map((inspection) => inspection.suggestion)).toEqual(['a@gmail.com', 'b@gmail.com']);
    const queries = lab.dns.queries;
    const again = await fresh.inspectGroup(['c@gmial.com', 'd@gmial.com'], { deadlineAt });
    expect(again.map((inspection) => inspection.suggestion)).toEqual(['c@gmail.com', 'd@gmail.com']);
    expect(lab.dns.queries).toBe(queries);
  });
});

describe('socket hygiene', () => {
  it('never writes CR, LF or NUL to a mail server, whatever the input', async () => {
    lab.resetStats();
    const hostile = [
      'john.doe@acme.test\r\nRCPT TO:<jane@acme.test>',
      'john.doe@acme.test>\r\nDATA',
      '"x\r\nQUIT"@acme.test',
      'jo\nhn@acme.test',
      'john\0@acme.test',
      'john.doe@acme.test\n',
      'a@acme.test\rMAIL FROM:<x@y.z>',
      'a\u2028b@acme.test',
    ];
    for (const input of hostile) expect((await engine.verify(input)).reason).toBe('invalid_syntax');
    await engine.verify('"quoted local"@acme.test');
    for (const server of lab.world.servers) {
      if (server.spec.down || server.spec.unresolvable) continue;
      const stats = lab.stats(server.name);
      expect(stats.violations).toEqual([]);
      for (const command of stats.commands) expect(command).not.toMatch(/[\r\n\0]/);
    }
    expect(lab.stats('mx1.acme.test').commands).toContain('RCPT TO:<"quoted local"@acme.test>');
  });
});

describe('probe: many addresses at one domain in one session (bulk lists)', () => {
  async function group(emails: string[]) {
    const inspections = await Promise.all(
      emails.map((email) => engine.inspect(email, { deadlineAt: Date.now() + 10_000 })),
    );
    const outcomes = await engine.probe({ inspections, deadlineAt: Date.now() + 10_000 });
    return inspections.map((inspection, index) => engine.conclude(inspection, outcomes[index]));
  }

  it('gives each address the verdict a single check gives it, over one session', async () => {
    const emails = [
      'john.doe@acme.test',
      'nobody@acme.test',
      'gone@acme.test',
      'full.box@acme.test',
      'jane@acme.test',
      'admin@acme.test',
    ];
    const before = lab.stats('mx1.acme.test').commands.length;
    const grouped = await group(emails);
    // One session: a new one or one kept open by an earlier probe, greeted once either way.
    const commands = lab.stats('mx1.acme.test').commands.slice(before);
    expect(commands.filter((command) => command.startsWith('EHLO')).length).toBeLessThanOrEqual(2);
    expect(commands.filter((command) => command.startsWith('MAIL'))).toHaveLength(1);
    const single = await Promise.all(emails.map((email) => engine.verify(email)));
    expect(grouped.map((result) => [result.email, result.status, result.reason])).toEqual(
      single.map((result) => [result.email, result.status, result.reason]),
    );
  });

  it('takes one recipient per transaction from a server that refuses more (452 4.5.3), answering every address', async () => {
    const results = await group(['a@picky.test', 'b@picky.test', 'c@picky.test']);
    expect(results.every((result) => result.reachable !== 'unknown')).toBe(true);
  });

  it('asks no more transactions once one address is accepted, with stopAtAccepted (the finder)', async () => {
    const emails = [
      'zz.first@acme.test',
      'john.doe@acme.test',
      'zz.third@acme.test',
      'zz.fourth@acme.test',
      'zz.fifth@acme.test',
    ];
    const inspections = await Promise.all(
      emails.map((email) => engine.inspect(email, { deadlineAt: Date.now() + 10_000 })),
    );
    const before = lab.stats('mx1.acme.test').commands.length;
    const outcomes = await engine.probe({ inspections, deadlineAt: Date.now() + 10_000, stopAtAccepted: 3 });
    const asked = lab
      .stats('mx1.acme.test')
      .commands.slice(before)
      .filter((command) => command.startsWith('RCPT TO:<zz.'));
    expect(asked).toEqual(['RCPT TO:<zz.first@acme.test>', 'RCPT TO:<zz.third@acme.test>']);
    expect(outcomes.map((outcome) => outcome.probe.failure)).toEqual([null, null, null, 'skipped', 'skipped']);
    expect(engine.conclude(inspections[1], outcomes[1]).reason).toBe('accepted_email');
    expect(engine.conclude(inspections[4], outcomes[4]).reachable).toBe('unknown');
  });

  it('marks the group catch-all from one made-up address', async () => {
    const results = await group(['one@catchall.test', 'two@catchall.test']);
    expect(results.map((result) => result.reason)).toEqual(['catch_all', 'catch_all']);
  });

  it('keeps catch-all for a group inspected before another group learnt it (no made-up address asked then)', async () => {
    const fresh = engineFor();
    const inspect = (email: string) => fresh.inspect(email, { deadlineAt: Date.now() + 10_000 });
    const late = await inspect('late@catchall.test');
    const early = await inspect('early@catchall.test');
    await fresh.probe({ inspections: [early], deadlineAt: Date.now() + 10_000 });
    lab.resetStats();
    const [outcome] = await fresh.probe({ inspections: [late], deadlineAt: Date.now() + 10_000 });
    expect(lab.stats('mx.catchall.test').commands.filter((command) => command.startsWith('RCPT'))).toHaveLength(1);
    expect(fresh.conclude(late, outcome)).toMatchObject({ status: 'risky', reason: 'catch_all' });
  });
});
