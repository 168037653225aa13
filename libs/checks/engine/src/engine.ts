import { randomBytes } from 'node:crypto';
import type { AppConfig } from '@mailguard/config';
import {
  createResolver,
  lookupAuthentication,
  lookupMailDomain,
  type Authentication,
  type DnsResolver,
  type MailDomain,
} from '@mailguard/dns';
import {
  correctionOf,
  isDisposableDomain,
  isFreeDomain,
  isRoleLocalPart,
  parseAddress,
  typoOf,
  type SyntaxProblem,
} from '@mailguard/email';
import { DomainAgeLookup, hasGravatar, outboundGet, type DomainAge, type HttpGet } from '@mailguard/lookups';
import { createOutbound } from '@mailguard/net';
import { catchAllConfidence, type DomainModel } from '@mailguard/scoring';
import {
  blockKey,
  buildEgress,
  detectProvider,
  EgressPool,
  MemoryEgressBlocks,
  MemorySessionGate,
  probeMailboxes,
  providerAcceptsAll,
  RecipientLimits,
  type Egress,
  type GroupProbeResult,
  type ProbeResult,
  type SessionGate,
  SessionPool,
  replyLine,
  TlsSessionCache,
} from '@mailguard/smtp';
import { decideVerdict, type MailboxAnswer, type UnknownCause } from '@mailguard/verdict';
import { MemoryTtlStore, type DomainCacheStore } from './domain-cache';
import { greylistRetry, type GreylistRetry } from './greylist';
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
  /** The ways out to port 25 and what providers think of each (shared by every prober when distributed). */
  egress: EgressPool;
  ageLookup: DomainAgeLookup;
  http: HttpGet;
  /** Source of the made-up local part used to test for catch-all. */
  decoyLocalPart: () => string;
  domainCache: DomainCacheStore<DomainFacts>;
  /**
   * Whether a domain is catch-all, as the first probe that could tell learnt it: a key of its own,
   * so that a probe ending before the domain's other look-ups (RDAP, say) are done and cached
   * neither loses what it learnt nor writes facts that are not complete yet.
   */
  catchAllCache: DomainCacheStore<boolean>;
  /** Caps concurrent sessions per MX host (shared by every prober process when distributed). */
  gate: SessionGate;
  /** TLS sessions of the MX hosts this process has spoken to, resumed by the next STARTTLS. */
  tlsSessions: TlsSessionCache;
  /** Greeted SMTP sessions kept open between probes at the same MX address. */
  sessions: SessionPool;
  now: () => Date;
}

/** What is known about a domain, cached per domain (A-label). */
export interface DomainFacts {
  mail: MailDomain;
  provider: string | null;
  authentication: Authentication;
  age: DomainAge;
  /** Learned from the first probe that could tell (read from `catchAllCache`); null until then. */
  catchAll: boolean | null;
}

const NO_AUTH: Authentication = {
  spf: { present: false, record: null },
  dkim: { present: false, selectors: [] },
  dmarc: { present: false, policy: null },
};

const UNKNOWN_AGE: DomainAge = { createdAt: null, ageDays: null };

/** A domain's look-ups in flight: the cache read, then the mail hosts, then everything. */
interface DomainLookups {
  cached: Promise<DomainFacts | undefined>;
  mail: Promise<DomainFacts>;
  facts: Promise<DomainFacts>;
}

/** Avatar look-ups of one group in flight at once: requests beyond the HTTP agent's sockets would only queue there. */
const AVATAR_LANES = 32;

function randomDecoy(): string {
  // Letters and digits with no name in them: no real mailbox is called this.
  return `mgv${randomBytes(10).toString('hex')}`;
}

/** Builds an engine from the validated configuration (the CLI and every worker do the same). */
export function createEngine(config: AppConfig, overrides: Partial<EngineDeps> = {}): VerificationEngine {
  const http = overrides.http ?? outboundGet(createOutbound(config));
  const gate = overrides.gate ?? new MemorySessionGate(config.smtp.mxConcurrency);
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
      egress: new EgressPool(
        config.prober.egress.map(buildEgress),
        new MemoryEgressBlocks(),
        config.prober.blockSeconds * 1000,
      ),
      ageLookup: new DomainAgeLookup(http, config.lookups.rdapBaseUrl),
      http,
      decoyLocalPart: randomDecoy,
      domainCache: new MemoryTtlStore<DomainFacts>(),
      catchAllCache: new MemoryTtlStore<boolean>(),
      gate,
      tlsSessions: new TlsSessionCache(),
      sessions: new SessionPool(config.smtp.sessionIdleMs, gate),
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

/**
 * Lets whoever awaits the mail hosts hand the SMTP stage its job before the look-ups it does not
 * need begin: the job's write is queued in the same turn of the event loop, these look-ups in the next.
 */
function afterDispatch(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * A domain's facts by the deadline (null when a look-up failed or ran past it); a failed cache read
 * is not an answer: it throws, and the job is retried.
 */
function settled(lookups: DomainLookups, step: 'mail' | 'facts', signal: AbortSignal): Promise<DomainFacts | null> {
  return lookups.cached.then(() => beforeDeadline(lookups[step], signal, null));
}

/** An inspection with its domain's facts (null: not known) and whether the address has an avatar. */
function withFacts(base: Inspection, facts: DomainFacts | null, gravatar: boolean | null): Inspection {
  return {
    ...base,
    facts,
    gravatar: facts?.mail.status === 'ok' ? gravatar : null,
    needsProbe: facts?.mail.status === 'ok',
  };
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

/** Why no answer about the mailbox could be had (docs/api.md#substatus): what the checks actually saw. */
function unknownCause(inspection: Inspection, probe: ProbeResult | null): UnknownCause {
  if (inspection.domain.startsWith('[')) return 'address_literal';
  const facts = inspection.facts;
  // No facts at all: the deadline came before DNS answered (a DNS failure has facts that say so).
  if (!facts) return 'timeout';
  if (facts.mail.status === 'error') return 'dns_error';
  switch (probe?.failure) {
    case 'greylisted':
    case 'rate_limited':
    case 'sender_blocked':
    case 'tls_failed':
    case 'timeout':
    case 'smtputf8_unsupported':
      return probe.failure;
    case 'no_connection':
    case 'private_address':
      return 'mx_unreachable';
    default:
      return 'unclassified';
  }
}

/** What the DNS stage learns about an address: everything but the SMTP answer. Plain JSON, so it can travel between workers. */
export interface Inspection {
  email: string;
  domain: string;
  localPart: string;
  syntaxValid: boolean;
  /** Why the syntax failed, when it did. */
  syntaxProblem: SyntaxProblem | null;
  /** A-label domain and RCPT TO form; null when the syntax failed. */
  asciiDomain: string | null;
  smtpAddress: string | null;
  needsSmtpUtf8: boolean;
  disposable: boolean;
  role: boolean;
  free: boolean;
  suggestion: string | null;
  facts: DomainFacts | null;
  gravatar: boolean | null;
  /** Syntax valid, not an address literal, and mail hosts to ask: the SMTP stage has work. */
  needsProbe: boolean;
}

export interface ProbeOutcome {
  probe: ProbeResult;
  durationMs: number;
}

export interface StageOptions {
  /** Epoch ms by which the whole check must answer. */
  deadlineAt: number;
}

/** One probe: addresses at one domain (inspected, with mail hosts to ask), asked in one session where possible. */
export interface ProbeRequest extends StageOptions {
  inspections: Inspection[];
  /** The finder's way (see ProbeOptions in libs/checks/smtp): few recipients per transaction, none after a yes. */
  stopAtAccepted?: number;
}

/**
 * Where a probe runs and how its outcomes come back (the finder and domain insight): the smtp
 * queue, or this process when there is none. Null: the deadline came first.
 */
export type Prober = (request: ProbeRequest) => Promise<ProbeOutcome[] | null>;

/** An AbortSignal that fires at `deadlineAt`, and its cleanup. */
function deadlineSignal(deadlineAt: number, now: number): { signal: AbortSignal; clear(): void } {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), Math.max(0, deadlineAt - now));
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}

/**
 * The nine checks of docs/api.md for one address, and the verdict, in three stages that the
 * distributed pipeline runs in three workers: `inspect` (syntax, DNS, lists, age, authentication,
 * Gravatar), `probe` (SMTP) and `conclude` (catch-all confidence and verdict). `verify` runs them in
 * a row. Framework-free: DNS, sockets, HTTP, clock and randomness come in through `deps`.
 */
export class VerificationEngine {
  private readonly inflight = new Map<string, DomainLookups>();
  /** What hosts' 452 4.5.3 taught this process's probes. */
  private readonly recipientLimits = new RecipientLimits();
  /**
   * Whether the providers typos are corrected to receive mail, and until when that is known: keyed
   * by the curated providers alone (typoOf names no other), so never more than that list.
   */
  private readonly providersReceiving = new Map<string, { receives: Promise<boolean>; until: number }>();

  constructor(
    readonly options: EngineOptions,
    private readonly deps: EngineDeps,
  ) {}

  /**
   * Domain facts from the cache, or looked up once even when many addresses ask at the same time:
   * `mail` settles as soon as the mail hosts are known (with the rest still unknown), `facts` once
   * everything is.
   */
  private domainFacts(domain: string): DomainLookups {
    let pending = this.inflight.get(domain);
    if (!pending) {
      const cached = Promise.all([this.deps.domainCache.get(domain), this.deps.catchAllCache.get(domain)]).then(
        ([known, catchAll]) => known && { ...known, catchAll: catchAll ?? known.catchAll },
      );
      const mail = cached.then(
        async (known) => known ?? this.mailFacts(await lookupMailDomain(this.deps.resolver, domain)),
      );
      const facts = Promise.all([cached, mail]).then(async ([known, early]) => {
        if (known) return known;
        await afterDispatch();
        const exists = early.mail.exists;
        const [authentication, age] = await Promise.all([
          exists ? lookupAuthentication(this.deps.resolver, domain) : NO_AUTH,
          exists ? this.deps.ageLookup.lookup(domain) : UNKNOWN_AGE,
        ]);
        const full: DomainFacts = { ...early, authentication, age };
        // A DNS failure is not cached: the next address asks again.
        if (full.mail.status !== 'error') await this.deps.domainCache.set(domain, full, this.options.domainCacheTtlMs);
        return full;
      });
      pending = { cached, mail, facts: facts.finally(() => this.inflight.delete(domain)) };
      // A failed cache read fails all three; callers learn of it through `cached` (see inspectInSteps).
      for (const step of [mail, pending.facts]) step.catch(() => undefined);
      this.inflight.set(domain, pending);
    }
    return pending;
  }

  /** What the mail hosts alone say about a domain: authentication and age not looked up yet. */
  private mailFacts(mail: MailDomain): DomainFacts {
    const provider = detectProvider(mail.records.map((r) => r.exchange));
    return { mail, provider, authentication: NO_AUTH, age: UNKNOWN_AGE, catchAll: null };
  }

  /**
   * The provider's address for a typo domain (`john@gmial.com` → `john@gmail.com`), only when the
   * provider's domain receives mail as the resolver sees it (MX, or A for want of one): never an
   * address that would bounce. A loose typo (`john@aok.com`, see typos.ts) is weighed with `typed`,
   * the typed domain's facts (null: none, as for a domain that fails the syntax). Nothing when a
   * look-up does not answer by the deadline.
   */
  private async suggestion(
    base: Inspection,
    signal: AbortSignal,
    typed: Promise<DomainFacts | null> | null,
  ): Promise<Inspection> {
    // A domain that fails the syntax is read for a slip too: the rule is the same on every path.
    const domain = base.asciiDomain ?? (base.syntaxProblem === 'bad_domain' ? base.domain : null);
    const typo = domain === null ? null : typoOf(domain);
    if (typo === null) return base;
    const mail = typed && (await typed)?.mail.status;
    const known = mail === 'ok' || mail === 'nxdomain' || mail === 'no_mail';
    const provider = correctionOf(typo, known ? mail === 'ok' : null);
    if (provider === null) return base;
    // The look-up in flight is what is kept, so that a list's many typos of one provider ask once.
    const now = this.deps.now().getTime();
    let receiving = this.providersReceiving.get(provider);
    if (!receiving || receiving.until <= now) {
      const receives = lookupMailDomain(this.deps.resolver, provider).then((mail) => {
        // A DNS failure is not remembered: the next typo asks again.
        if (mail.status === 'error') this.providersReceiving.delete(provider);
        return mail.status === 'ok';
      });
      receiving = { receives, until: now + this.options.domainCacheTtlMs };
      this.providersReceiving.set(provider, receiving);
    }
    return (await beforeDeadline(receiving.receives, signal, false))
      ? { ...base, suggestion: `${base.localPart}@${provider}` }
      : base;
  }

  /** What can be said without the network: syntax, and the disposable, role and free lists. */
  inspectLocally(input: string): Inspection {
    const syntax = parseAddress(input);
    if (!syntax.valid) {
      return {
        email: syntax.email,
        domain: syntax.domain,
        localPart: syntax.localPart,
        syntaxValid: false,
        syntaxProblem: syntax.kind,
        asciiDomain: null,
        smtpAddress: null,
        needsSmtpUtf8: false,
        disposable: false,
        role: false,
        free: false,
        suggestion: null,
        facts: null,
        gravatar: null,
        needsProbe: false,
      };
    }
    const literal = syntax.addressLiteral;
    return {
      email: syntax.email,
      domain: syntax.domain,
      localPart: syntax.localPart,
      syntaxValid: true,
      syntaxProblem: null,
      asciiDomain: syntax.asciiDomain,
      smtpAddress: syntax.smtpAddress,
      needsSmtpUtf8: syntax.needsSmtpUtf8,
      disposable: !literal && isDisposableDomain(syntax.asciiDomain),
      role: isRoleLocalPart(syntax.localPart),
      free: !literal && isFreeDomain(syntax.asciiDomain),
      // Offered only once the provider is known to receive mail (see `suggestion`): a look-up.
      suggestion: null,
      facts: null,
      gravatar: null,
      needsProbe: false,
    };
  }

  /**
   * The answer when the network had nothing to add in time: `reachable: unknown` unless the syntax
   * or the local lists settle the address. What a check is given at a deadline nothing else met.
   */
  concludeLocally(input: string): VerificationResult {
    return this.conclude(this.inspectLocally(input), null);
  }

  /** Stage 1: everything that needs no SMTP session. */
  inspect(input: string, options: StageOptions): Promise<Inspection> {
    return this.inspectInSteps(input, options).full;
  }

  /**
   * Stage 1 in two steps, so that SMTP need not wait for what it does not use: `early` as soon as
   * the mail hosts are known (authentication, age and Gravatar not known yet, unless the domain's
   * facts were cached), `full` once everything is — for the verdict, which joins the two.
   */
  inspectInSteps(
    input: string,
    { deadlineAt }: StageOptions,
  ): { early: Promise<Inspection>; full: Promise<Inspection> } {
    const base = this.inspectLocally(input);
    // Address literals pass syntax but are never looked up or probed.
    if (base.domain.startsWith('[')) return { early: Promise.resolve(base), full: Promise.resolve(base) };
    const deadline = deadlineSignal(deadlineAt, this.deps.now().getTime());
    if (!base.syntaxValid) {
      const suggested = this.suggestion(base, deadline.signal, null).finally(() => deadline.clear());
      return { early: suggested, full: suggested };
    }
    const asciiDomain = base.asciiDomain as string;
    const lookups = this.domainFacts(asciiDomain);
    const mail = settled(lookups, 'mail', deadline.signal);
    const suggested = this.suggestion(base, deadline.signal, mail);
    const early = Promise.all([suggested, mail]).then(([local, facts]) => withFacts(local, facts, null));
    // An avatar counts only for an address with a mail host to ask (see withFacts).
    const gravatar = early.then(async (first) => {
      if (!first.needsProbe) return null;
      await afterDispatch();
      return beforeDeadline(
        hasGravatar(this.deps.http, this.options.gravatarBaseUrl, base.email),
        deadline.signal,
        null,
      );
    });
    const full = Promise.all([settled(lookups, 'facts', deadline.signal), gravatar])
      .then(async ([facts, avatar]) => withFacts(await suggested, facts, avatar))
      .finally(() => deadline.clear());
    // A caller may use one of the two and drop the other: a failure is reported through the one used.
    for (const step of [early, full]) step.catch(() => undefined);
    return { early, full };
  }

  /**
   * Stage 1 for many addresses at once (a list's group): each domain's facts are read once for all
   * of its addresses. Avatars are asked later, where the group is concluded (see `withAvatars`).
   */
  async inspectGroup(inputs: string[], { deadlineAt }: StageOptions): Promise<Inspection[]> {
    const deadline = deadlineSignal(deadlineAt, this.deps.now().getTime());
    const facts = new Map<string, Promise<DomainFacts | null>>();
    const factsOf = (domain: string) => {
      let pending = facts.get(domain);
      if (!pending) facts.set(domain, (pending = settled(this.domainFacts(domain), 'facts', deadline.signal)));
      return pending;
    };
    try {
      return await Promise.all(
        inputs.map(async (input): Promise<Inspection> => {
          const base = this.inspectLocally(input);
          // Address literals pass syntax but are never looked up or probed.
          if (base.domain.startsWith('[')) return base;
          if (!base.syntaxValid) return this.suggestion(base, deadline.signal, null);
          const facts = factsOf(base.asciiDomain as string);
          const [local, known] = await Promise.all([this.suggestion(base, deadline.signal, facts), facts]);
          return withFacts(local, known, null);
        }),
      );
    } finally {
      deadline.clear();
    }
  }

  /**
   * The Gravatar look-ups of a list group's addresses that have a mail host (the only ones an avatar
   * counts for, see withFacts), AVATAR_LANES at a time, where the group is concluded: one HTTP
   * request per address was most of the list feed's work, and a list's feed is one process while
   * its groups are concluded side by side (beside the SMTP session, 200 probes at once held
   * thousands of requests: the smtp-worker passed 700 MB).
   */
  async withAvatars(inspections: Inspection[]): Promise<Inspection[]> {
    // Those already answered (a job run again) are not asked again.
    const asked = inspections.flatMap((inspection, index) =>
      inspection.facts?.mail.status === 'ok' && inspection.gravatar === null ? [index] : [],
    );
    const found = new Map<number, boolean | null>();
    const lane = async (): Promise<void> => {
      for (let index = asked.shift(); index !== undefined; index = asked.shift())
        found.set(index, await hasGravatar(this.deps.http, this.options.gravatarBaseUrl, inspections[index].email));
    };
    await Promise.all(Array.from({ length: AVATAR_LANES }, lane));
    return inspections.map((inspection, index) =>
      found.has(index) ? { ...inspection, gravatar: found.get(index) as boolean | null } : inspection,
    );
  }

  /** Who the prober is and how it connects, for one probe through `egress`. */
  private session(egress: Egress, deadlineAt: number, signal: AbortSignal) {
    const { options, deps } = this;
    return {
      heloName: options.heloName,
      mailFrom: options.mailFrom,
      port: options.smtpPort,
      timeoutMs: options.smtpTimeoutMs,
      egress: egress.id,
      family: egress.family,
      connector: egress.connector,
      allowPrivate: options.allowPrivateMx,
      gate: deps.gate,
      tlsSessions: deps.tlsSessions,
      pool: deps.sessions,
      recipientLimits: this.recipientLimits,
      deadlineAt,
      signal,
    };
  }

  /** The sessions kept open between probes, for the metrics. */
  get keptSessions(): Pick<SessionPool, 'size' | 'reused'> {
    return this.deps.sessions;
  }

  /** Says goodbye to the sessions kept open between probes (shutdown): their slots come back. */
  closeSessions(): void {
    this.deps.sessions.close();
  }

  /** The per-MX session cap this engine's probes go through (for gauges and operators). */
  get gate(): SessionGate {
    return this.deps.gate;
  }

  /** The egresses this engine's probes go out through, and their blocks. */
  get egress(): EgressPool {
    return this.deps.egress;
  }

  /**
   * Stage 2: the SMTP probe of addresses at one domain (a single check is a group of one): one
   * session asks for all of them, with the made-up address once for the group while the domain's
   * catch-all is not known, each session under the per-MX lease. What it learns about catch-all goes
   * into the shared domain cache. Greylisting is not waited for here: see `greylistRetry`.
   */
  async probe({ inspections, deadlineAt, stopAtAccepted }: ProbeRequest): Promise<ProbeOutcome[]> {
    const facts = inspections[0].facts as DomainFacts;
    const domain = inspections[0].asciiDomain as string;
    const started = this.deps.now().getTime();
    const deadline = deadlineSignal(deadlineAt, started);
    try {
      // Read while the session opens: the made-up address is needed only at the first RCPT.
      const knowing = this.deps.catchAllCache.get(domain).then((cached) => cached ?? facts.catchAll);
      const group = await this.probeThroughEgress(
        blockKey(
          facts.provider,
          facts.mail.hosts.map((host) => host.exchange),
        ),
        inspections.map((inspection) => inspection.smtpAddress as string),
        (egress, addresses) =>
          probeMailboxes({
            hosts: facts.mail.hosts,
            addresses,
            needsSmtpUtf8: inspections.some((inspection) => inspection.needsSmtpUtf8),
            catchAllLocalPart: knowing.then((known) => (known === null ? this.deps.decoyLocalPart() : null)),
            stopAtAccepted,
            ...this.session(egress, deadlineAt, deadline.signal),
          }),
        { deadlineAt, stopAtAccepted },
      );
      const known = await knowing;
      const learned = group.results.find((result) => result.catchAll !== null)?.catchAll ?? null;
      if (known === null && learned !== null)
        await this.deps.catchAllCache.set(domain, learned, this.options.domainCacheTtlMs);
      const durationMs = this.deps.now().getTime() - started;
      // Known before this probe (so no made-up address was asked): the inspection may predate it.
      return group.results.map((probe) => ({ probe: { ...probe, catchAll: probe.catchAll ?? known }, durationMs }));
    } finally {
      deadline.clear();
    }
  }

  /**
   * A probe through the first usable egress for the domain's key; what that egress could not ask
   * because it was refused (a `sender_blocked` reply) or could not connect anywhere goes out again
   * through the next one, while the deadline lasts. A refused egress is blocked for the key at
   * once; one that could not connect only once another egress got a reply there (else the hosts
   * are down, not refusing us). With no usable egress the addresses are `sender_blocked` without a
   * connection. What the shared store could not record does not fail the probe: its answers stand.
   */
  private async probeThroughEgress(
    key: string,
    addresses: string[],
    probe: (egress: Egress, addresses: string[]) => Promise<GroupProbeResult>,
    { deadlineAt, stopAtAccepted }: { deadlineAt: number; stopAtAccepted?: number },
  ): Promise<GroupProbeResult> {
    const pool = this.deps.egress;
    const record = (work: Promise<unknown>) => work.catch(() => undefined);
    const results: Array<ProbeResult | null> = addresses.map(() => null);
    let sessions = 0;
    let roundTrips = 0;
    let pending = addresses.map((_, index) => index);
    /** Egresses that reached no host, waiting for another egress to show whether the hosts are up. */
    const unreachable: Egress[] = [];
    for (const egress of pool.usable(key)) {
      // Out of time: what the last egress found stands.
      if (results.some(Boolean) && this.deps.now().getTime() >= deadlineAt) break;
      const group = await probe(
        egress,
        pending.map((index) => addresses[index]),
      );
      sessions += group.sessions;
      roundTrips += group.roundTrips;
      const again: number[] = [];
      const refusal = group.results.find((result) => result.failure === 'sender_blocked');
      // A server said something: the egress connects there (an abort at the deadline says nothing).
      const reached = group.results.some((result) => result.definite || result.reply !== null);
      group.results.forEach((result, position) => {
        const index = pending[position];
        results[index] = result;
        if (result.failure === 'sender_blocked' || result.failure === 'no_connection') again.push(index);
      });
      if (reached)
        for (const other of unreachable.splice(0))
          await record(pool.block(other.id, key, 'connections refused or timed out while another egress connected'));
      if (refusal)
        await record(pool.block(egress.id, key, refusal.reply ? replyLine(refusal.reply).slice(0, 300) : 'refused'));
      else if (group.results.every((result) => result.failure === 'no_connection')) unreachable.push(egress);
      else if (reached) await record(pool.through(egress.id, key));
      pending = again;
      // The finder stops at the first address a server took: the rest are not asked elsewhere either.
      if (stopAtAccepted && results.some((result) => result?.replyClass === 'accepted')) break;
      if (pending.length === 0) break;
    }
    const blocked: ProbeResult = {
      definite: false,
      replyClass: 'sender_blocked',
      failure: 'sender_blocked',
      reply: null,
      host: null,
      catchAll: null,
      sessions,
      roundTrips,
    };
    return {
      results: results.map((result) => (result ? { ...result, sessions, roundTrips } : blocked)),
      sessions,
      roundTrips,
    };
  }

  /** The greylisting policy (`greylistRetry`) with this engine's GREYLIST_RETRY_SECONDS and clock. */
  greylistRetry(outcomes: ProbeOutcome[], state: { attempt: number; deadlineAt: number | null }): GreylistRetry | null {
    return greylistRetry(outcomes, { ...state, now: this.deps.now().getTime(), retryMs: this.options.greylistRetryMs });
  }

  /**
   * A probe with its greylisting retries waited for in this process, for `verify` (the CLI, which
   * has no queue); the pipeline's smtp job schedules a delayed job instead, by the same policy.
   */
  async probeHere(request: ProbeRequest): Promise<ProbeOutcome[]> {
    const outcomes = await this.probe(request);
    const deadline = deadlineSignal(request.deadlineAt, this.deps.now().getTime());
    try {
      for (let attempt = 0; ; attempt++) {
        const retry = this.greylistRetry(outcomes, { attempt, deadlineAt: request.deadlineAt });
        if (!retry || !(await sleep(retry.delayMs, deadline.signal))) return outcomes;
        const again = await this.probe({
          ...request,
          inspections: retry.indices.map((index) => request.inspections[index]),
        });
        retry.indices.forEach((index, position) => (outcomes[index] = again[position]));
      }
    } finally {
      deadline.clear();
    }
  }

  /** Stage 3: catch-all confidence and the verdict; `outcome` is null when SMTP was not (or could not be) asked. */
  /** `domain`: what the service has learned about the domain's addresses (catch-all domains only). */
  conclude(
    inspection: Inspection,
    outcome: ProbeOutcome | null,
    domain: DomainModel | null = null,
  ): VerificationResult {
    const facts = inspection.facts;
    const probe = outcome?.probe ?? null;
    const mailbox = mailboxAnswer(probe);
    const accepted = mailbox === 'accepted' || mailbox === 'busy';
    const acceptsAll = providerAcceptsAll(facts?.provider ?? null);
    const catchAll = accepted && (probe?.catchAll === true || facts?.catchAll === true || acceptsAll);
    const confidence = catchAll
      ? catchAllConfidence({
          localPart: inspection.localPart,
          role: inspection.role,
          gravatar: inspection.gravatar,
          spf: facts?.authentication.spf.present ?? false,
          dmarc: facts?.authentication.dmarc.present ?? false,
          ageDays: facts?.age.ageDays ?? null,
          providerAcceptsAll: acceptsAll,
          domain,
        })
      : null;
    const verdict = decideVerdict({
      syntaxValid: inspection.syntaxValid,
      syntaxProblem: inspection.syntaxProblem,
      domainExists: facts ? facts.mail.exists : null,
      noMail: facts?.mail.status === 'no_mail',
      nullMx: facts?.mail.nullMx ?? false,
      mailbox,
      unknownCause: unknownCause(inspection, probe),
      catchAll,
      catchAllConfidence: confidence?.confidence ?? null,
      disposable: inspection.disposable,
      role: inspection.role,
    });
    const reply = probe?.reply ?? null;
    return {
      email: inspection.email,
      domain: inspection.domain,
      status: verdict.status,
      confidence: verdict.confidence,
      score: verdict.score,
      reason: verdict.reason,
      subStatus: verdict.subStatus,
      isValid: verdict.isValid,
      reachable: verdict.reachable,
      syntax: inspection.syntaxValid,
      smtp: {
        hostExists: (facts?.mail.hosts.length ?? 0) > 0,
        deliverable: accepted,
        catchAll,
        fullInbox: mailbox === 'full',
        disabled: mailbox === 'disabled',
      },
      isFree: inspection.free,
      isRole: inspection.role,
      isDisposable: inspection.disposable,
      hasGravatar: inspection.gravatar === true,
      suggestion: inspection.suggestion,
      verifiedAt: this.deps.now().toISOString(),
      cached: false,
      checks: {
        syntax: { valid: inspection.syntaxValid, localPart: inspection.localPart, domain: inspection.domain },
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
          durationMs: outcome?.durationMs ?? 0,
        },
        disposable: { value: inspection.disposable },
        role: { value: inspection.role },
        catchAll: {
          value: catchAll,
          confidence: confidence?.confidence ?? null,
          ...(confidence ? { signals: confidence.signals } : {}),
        },
        domainAge: facts?.age ?? { createdAt: null, ageDays: null },
        authentication: facts?.authentication ?? NO_AUTH,
      },
    };
  }

  /** All three stages in this process. */
  async verify(input: string, options: { deadlineMs?: number } = {}): Promise<VerificationResult> {
    const deadlineAt = this.deps.now().getTime() + (options.deadlineMs ?? this.options.deadlineMs);
    const inspection = await this.inspect(input, { deadlineAt });
    const [outcome] = inspection.needsProbe ? await this.probeHere({ inspections: [inspection], deadlineAt }) : [null];
    return this.conclude(inspection, outcome);
  }
}
