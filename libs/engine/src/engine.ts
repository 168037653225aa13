import { randomBytes } from 'node:crypto';
import type { AppConfig } from '@mailguard/config';
import { createResolver, lookupAuthentication, lookupMailDomain, type Authentication, type DnsResolver, type MailDomain } from '@mailguard/dns';
import { isDisposableDomain, isFreeDomain, isRoleLocalPart, parseAddress, suggestCorrection, type ValidAddress } from '@mailguard/email';
import { DomainAgeLookup, fetchGet, hasGravatar, type DomainAge, type HttpGet } from '@mailguard/lookups';
import { catchAllConfidence } from '@mailguard/scoring';
import { detectProvider, directConnector, probeMailbox, providerAcceptsAll, socksConnector, type Connector, type ProbeResult } from '@mailguard/smtp';
import { decideVerdict, type MailboxAnswer, type UnknownCause } from '@mailguard/verdict';
import { MemoryDomainCache, type DomainCacheStore } from './domain-cache';
import type { VerificationResult } from './result';

export interface EngineOptions {
  heloName: string;
  mailFrom: string;
  smtpPort: number;
  smtpTimeoutMs: number;
  allowPrivateMx: boolean;
  /** Every check answers within this; what SMTP has not settled by then is unknown. */
  deadlineMs: number;
  /** Wait this long and probe again after greylisting, when it fits in the deadline; null: never. */
  greylistRetryMs: number | null;
  gravatarBaseUrl: string;
  domainCacheTtlMs: number;
}

export interface EngineDeps {
  resolver: DnsResolver;
  connector: Connector;
  ageLookup: DomainAgeLookup;
  http: HttpGet;
  /** Source of the made-up local part used to test for catch-all. */
  decoyLocalPart: () => string;
  domainCache: DomainCacheStore<DomainFacts>;
  now: () => Date;
}

/** What is known about a domain, cached per domain (A-label). */
export interface DomainFacts {
  mail: MailDomain;
  provider: string | null;
  authentication: Authentication;
  age: DomainAge;
  /** Learned from the first probe that could tell; null until then. */
  catchAll: boolean | null;
}

const NO_AUTH: Authentication = { spf: { present: false, record: null }, dkim: { present: false, selectors: [] }, dmarc: { present: false, policy: null } };

function randomDecoy(): string {
  // Letters and digits with no name in them: no real mailbox is called this.
  return `mgv${randomBytes(10).toString('hex')}`;
}

/** Builds an engine from the validated configuration (the CLI and every worker do the same). */
export function createEngine(config: AppConfig, overrides: Partial<EngineDeps> = {}): VerificationEngine {
  const http = overrides.http ?? fetchGet;
  return new VerificationEngine(
    {
      heloName: config.smtp.heloName,
      mailFrom: config.smtp.mailFrom,
      smtpPort: config.smtp.port,
      smtpTimeoutMs: config.smtp.timeoutMs,
      allowPrivateMx: config.smtp.allowPrivateMx,
      deadlineMs: config.checks.deadlineMs,
      greylistRetryMs: config.checks.greylistRetrySeconds * 1000,
      gravatarBaseUrl: config.lookups.gravatarBaseUrl,
      domainCacheTtlMs: Math.min(config.checks.cacheTtlSeconds, 3_600) * 1000,
    },
    {
      resolver: createResolver({ servers: config.dns.servers }),
      connector: config.smtp.proxy ? socksConnector(config.smtp.proxy) : directConnector,
      ageLookup: new DomainAgeLookup(http, config.lookups.rdapBaseUrl),
      http,
      decoyLocalPart: randomDecoy,
      domainCache: new MemoryDomainCache<DomainFacts>(),
      now: () => new Date(),
      ...overrides,
    },
  );
}

function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Resolves to `fallback` when the deadline passes first or the work fails. */
function beforeDeadline<T, F>(work: Promise<T>, signal: AbortSignal, fallback: F): Promise<T | F> {
  if (signal.aborted) return Promise.resolve(fallback);
  return new Promise((resolve) => {
    const onAbort = () => resolve(fallback);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve(fallback);
      },
    );
  });
}

function mailboxAnswer(probe: ProbeResult | null): MailboxAnswer {
  switch (probe?.definite ? probe.replyClass : null) {
    case 'accepted':
      return 'accepted';
    case 'mailbox_exists':
      return 'busy';
    case 'no_such_user':
      return 'no_such_user';
    case 'disabled':
      return 'disabled';
    case 'full':
      return 'full';
    default:
      return 'unknown';
  }
}

function unknownCause(facts: DomainFacts | null, probe: ProbeResult | null): UnknownCause {
  if (!facts || facts.mail.status === 'error') return 'dns_error';
  switch (probe?.failure) {
    case 'greylisted':
      return 'greylisted';
    case 'sender_blocked':
      return 'sender_blocked';
    case 'no_connection':
    case 'timeout':
      return 'no_connection';
    default:
      return 'other';
  }
}

/**
 * The nine checks of SPEC.md §1 for one address, and the verdict. Framework-free: DNS, sockets,
 * HTTP, clock and randomness come in through `deps`, so workers, the CLI and tests share this path.
 */
export class VerificationEngine {
  private readonly inflight = new Map<string, Promise<DomainFacts>>();

  constructor(
    readonly options: EngineOptions,
    private readonly deps: EngineDeps,
  ) {}

  /** Domain facts from the cache, or looked up once even when many addresses ask at the same time. */
  private async domainFacts(domain: string, signal: AbortSignal): Promise<DomainFacts | null> {
    const cached = await this.deps.domainCache.get(domain);
    if (cached) return cached;
    let pending = this.inflight.get(domain);
    if (!pending) {
      pending = (async () => {
        const mail = await lookupMailDomain(this.deps.resolver, domain);
        const [authentication, age] = await Promise.all([
          mail.exists ? lookupAuthentication(this.deps.resolver, domain) : NO_AUTH,
          mail.exists ? this.deps.ageLookup.lookup(domain) : { createdAt: null, ageDays: null },
        ]);
        const facts: DomainFacts = { mail, provider: detectProvider(mail.records.map((r) => r.exchange)), authentication, age, catchAll: null };
        // A DNS failure is not cached: the next address asks again.
        if (mail.status !== 'error') await this.deps.domainCache.set(domain, facts, this.options.domainCacheTtlMs);
        return facts;
      })().finally(() => this.inflight.delete(domain));
      this.inflight.set(domain, pending);
    }
    return beforeDeadline(pending, signal, null);
  }

  private async probe(address: ValidAddress, facts: DomainFacts, signal: AbortSignal): Promise<ProbeResult> {
    const run = (decoy: string | null) =>
      probeMailbox({
        hosts: facts.mail.hosts,
        address: address.smtpAddress,
        needsSmtpUtf8: address.needsSmtpUtf8,
        catchAllLocalPart: decoy,
        heloName: this.options.heloName,
        mailFrom: this.options.mailFrom,
        port: this.options.smtpPort,
        timeoutMs: this.options.smtpTimeoutMs,
        connector: this.deps.connector,
        allowPrivate: this.options.allowPrivateMx,
        signal,
      });
    let result = await run(facts.catchAll === null ? this.deps.decoyLocalPart() : null);
    const retry = this.options.greylistRetryMs;
    if (!result.definite && result.failure === 'greylisted' && retry !== null) {
      const started = this.deps.now().getTime();
      if (started + retry < this.deadlineAt(signal) && (await sleep(retry, signal))) {
        result = await run(facts.catchAll === null ? this.deps.decoyLocalPart() : null);
      }
    }
    if (result.catchAll !== null && facts.catchAll === null) {
      facts.catchAll = result.catchAll;
      await this.deps.domainCache.set(address.asciiDomain, facts, this.options.domainCacheTtlMs);
    }
    return result;
  }

  private readonly deadlines = new WeakMap<AbortSignal, number>();

  private deadlineAt(signal: AbortSignal): number {
    return this.deadlines.get(signal) ?? Number.POSITIVE_INFINITY;
  }

  async verify(input: string, options: { deadlineMs?: number } = {}): Promise<VerificationResult> {
    const deadlineMs = options.deadlineMs ?? this.options.deadlineMs;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), deadlineMs);
    this.deadlines.set(controller.signal, this.deps.now().getTime() + deadlineMs);
    try {
      return await this.run(input, controller.signal);
    } finally {
      clearTimeout(timer);
    }
  }

  private async run(input: string, signal: AbortSignal): Promise<VerificationResult> {
    const syntax = parseAddress(input);
    if (!syntax.valid) return this.assemble({ email: syntax.email, domain: syntax.domain, localPart: syntax.localPart, syntaxValid: false });
    const disposable = !syntax.addressLiteral && isDisposableDomain(syntax.asciiDomain);
    const role = isRoleLocalPart(syntax.localPart);
    const common = {
      email: syntax.email,
      domain: syntax.domain,
      localPart: syntax.localPart,
      syntaxValid: true,
      disposable,
      role,
      free: !syntax.addressLiteral && isFreeDomain(syntax.asciiDomain),
      suggestion: syntax.addressLiteral ? null : suggestCorrection(syntax.localPart, syntax.asciiDomain),
    };
    if (syntax.addressLiteral) return this.assemble(common);

    const facts = await this.domainFacts(syntax.asciiDomain, signal);
    if (!facts || facts.mail.status !== 'ok') return this.assemble({ ...common, facts });

    const smtpStarted = this.deps.now().getTime();
    const [probe, gravatar] = await Promise.all([
      this.probe(syntax, facts, signal),
      beforeDeadline(hasGravatar(this.deps.http, this.options.gravatarBaseUrl, syntax.email), signal, null),
    ]);
    const smtpMs = this.deps.now().getTime() - smtpStarted;
    return this.assemble({ ...common, facts, probe, gravatar, smtpMs });
  }

  private assemble(parts: {
    email: string;
    domain: string;
    localPart: string;
    syntaxValid: boolean;
    disposable?: boolean;
    role?: boolean;
    free?: boolean;
    suggestion?: string | null;
    facts?: DomainFacts | null;
    probe?: ProbeResult;
    gravatar?: boolean | null;
    smtpMs?: number;
  }): VerificationResult {
    const { facts = null, probe = null } = parts;
    const mailbox = mailboxAnswer(probe);
    const accepted = mailbox === 'accepted' || mailbox === 'busy';
    const catchAll = accepted && (probe?.catchAll === true || facts?.catchAll === true || providerAcceptsAll(facts?.provider ?? null));
    const confidence = catchAll
      ? catchAllConfidence({
          localPart: parts.localPart,
          role: parts.role ?? false,
          gravatar: parts.gravatar ?? null,
          spf: facts?.authentication.spf.present ?? false,
          dmarc: facts?.authentication.dmarc.present ?? false,
          ageDays: facts?.age.ageDays ?? null,
          providerAcceptsAll: providerAcceptsAll(facts?.provider ?? null),
        })
      : null;
    const verdict = decideVerdict({
      syntaxValid: parts.syntaxValid,
      domainExists: facts ? facts.mail.exists : null,
      noMail: facts?.mail.status === 'no_mail',
      mailbox,
      unknownCause: unknownCause(facts, probe),
      catchAll,
      catchAllConfidence: confidence?.confidence ?? null,
      disposable: parts.disposable ?? false,
      role: parts.role ?? false,
    });
    const reply = probe?.definite ? probe.reply : (probe?.reply ?? null);
    return {
      email: parts.email,
      domain: parts.domain,
      status: verdict.status,
      confidence: verdict.confidence,
      score: verdict.score,
      reason: verdict.reason,
      isValid: verdict.isValid,
      reachable: verdict.reachable,
      syntax: parts.syntaxValid,
      smtp: {
        hostExists: (facts?.mail.hosts.length ?? 0) > 0,
        deliverable: accepted,
        catchAll,
        fullInbox: mailbox === 'full',
        disabled: mailbox === 'disabled',
      },
      isFree: parts.free ?? false,
      isRole: parts.role ?? false,
      isDisposable: parts.disposable ?? false,
      hasGravatar: parts.gravatar === true,
      suggestion: parts.suggestion ?? null,
      verifiedAt: this.deps.now().toISOString(),
      cached: false,
      checks: {
        syntax: { valid: parts.syntaxValid, localPart: parts.localPart, domain: parts.domain },
        domain: { exists: facts ? facts.mail.exists : null },
        mx: {
          valid: facts?.mail.status === 'ok',
          records: facts && !facts.mail.nullMx ? facts.mail.records : [],
          nullMx: facts?.mail.nullMx ?? false,
          implicit: facts?.mail.implicit ?? false,
          provider: facts?.provider ?? null,
        },
        smtp: {
          checked: probe?.definite ?? false,
          code: reply?.code ?? null,
          enhancedCode: reply?.enhancedCode ?? null,
          message: reply?.message ?? null,
          durationMs: parts.smtpMs ?? 0,
        },
        disposable: { value: parts.disposable ?? false },
        role: { value: parts.role ?? false },
        catchAll: { value: catchAll, confidence: confidence?.confidence ?? null, ...(confidence ? { signals: confidence.signals } : {}) },
        domainAge: facts?.age ?? { createdAt: null, ageDays: null },
        authentication: facts?.authentication ?? NO_AUTH,
      },
    };
  }
}
