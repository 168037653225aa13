import type { DomainSpec, Scenario, ServerSpec } from '../lab';

/**
 * The soak's mail world: one MX host per behaviour of the lab, most of them offering STARTTLS as
 * the big providers do, and the settings that make a cycle last tens of seconds.
 */

/** The prober's egresses, in SMTP_EGRESS order: the first carries every probe while it is not blocked. */
export const EGRESS_IPS = ['127.250.1.1', '127.250.1.2'];

/** Settings of every process: short deadlines and retries so that one cycle takes seconds, not minutes. */
/** The soak's operator credential (`ADMIN_TOKEN`). */
export const SOAK_ADMIN_TOKEN = 'soak-operator-token-0123456789';

export const SOAK_SETTINGS = {
  CHECK_DEADLINE_MS: '4000',
  SMTP_TIMEOUT_MS: '1500',
  GREYLIST_RETRY_SECONDS: '1',
  WEBHOOK_RETRY_SECONDS: '1',
  // One account sends hundreds of requests a cycle: the per-key minute (docs/api.md#authentication: 60) would turn them into 429s.
  RATE_LIMIT_PER_MINUTE: '1000000',
  SIGNUP_LIMIT_PER_IP_HOUR: '1000000',
  // The widget's public tier counts per client address: each cycle comes from its own (X-Forwarded-For).
  TRUST_PROXY: '1',
  SMTP_HELO_NAME: 'soak.mailguard.test',
  // Two ways out (addresses no other test binds), and a back-off short enough to end within a cycle.
  SMTP_EGRESS: EGRESS_IPS.map((ip) => `local:${ip}`).join(','),
  PROBER_BLOCK_SECONDS: '3',
  // The operator console, used by every cycle (grant, suspend, unsuspend).
  ADMIN_TOKEN: SOAK_ADMIN_TOKEN,
};

/** What a domain's server does to a check, as far as the soak's assertions are concerned. */
export type DomainRole =
  /** A strict server that always answers for a mailbox: a known one must come back definite when idle. */
  | 'strict'
  | 'catch-all'
  /** Answers `unknown` by design (tarpit, blocked sender, TLS required and broken, a lone MX cooling down after 421). */
  | 'dark';

export interface SoakDomain {
  name: string;
  role: DomainRole;
  /** The lab behaviour it stands for, as the figures name it. */
  behaviour: string;
  /** The MX host whose slots a check of this domain takes first. */
  host: string;
}

/** People with a mailbox at every strict domain (`first.last`): finder hits and known addresses. */
export const PEOPLE: Array<[string, string]> = [
  ['Ann', 'Lee'],
  ['Bob', 'King'],
  ['Cara', 'Diaz'],
  ['Dan', 'Fox'],
  ['Eve', 'Moss'],
  ['Finn', 'Ray'],
];

/** Local parts that a strict server greylists for ever: they keep a list running (retries) until it is cancelled. */
export const STUBBORN_DOMAIN = 'stubborn.soak';

/**
 * The domain whose MX refuses the egresses mid-run (see egress-block.ts): its host is named like
 * Google's, so a block there is the provider `google`'s, which readiness names.
 */
export const BLOCK_DOMAIN = 'google.soak';
export const BLOCK_HOST = 'gmail-smtp-in.l.google.com';
export const BLOCK_PROVIDER = 'google';
/** Known mailboxes at BLOCK_DOMAIN that only the block episode asks (`egress<n>`, n below this). */
export const BLOCK_MAILBOXES = 8;

const TLS: ServerSpec = { tls: 'offered' };
const TARPIT_BANNER_MS = 4 * Number(SOAK_SETTINGS.SMTP_TIMEOUT_MS);

interface Entry {
  role: DomainRole;
  behaviour: string;
  /** Servers by priority: the first is the host the domain's checks go to first. */
  mx: Array<[string, ServerSpec]>;
  domains?: number;
}

const ENTRIES: Record<string, Entry> = {
  plain: { role: 'strict', behaviour: 'no TLS', mx: [['mx.plain.soak', { tls: 'none' }]] },
  tls: { role: 'strict', behaviour: 'STARTTLS offered', mx: [['mx.tls.soak', TLS]], domains: 3 },
  tlsreq: { role: 'strict', behaviour: 'STARTTLS required', mx: [['mx.tlsreq.soak', { tls: 'required' }]] },
  tlsfallback: {
    role: 'strict',
    behaviour: 'STARTTLS broken, plaintext retry',
    mx: [['mx.tlsfallback.soak', { tls: 'offered', tlsBroken: true }]],
  },
  picky: {
    role: 'strict',
    behaviour: 'one recipient per session',
    mx: [['mx.picky.soak', { ...TLS, maxRecipients: 1 }]],
  },
  greylist: { role: 'strict', behaviour: 'greylisting', mx: [['mx.greylist.soak', { ...TLS, greylistMs: 300 }]] },
  slow: { role: 'strict', behaviour: 'latency', mx: [['mx.slow.soak', { ...TLS, latencyMs: 120 }]] },
  failover: {
    role: 'strict',
    behaviour: 'dead primary MX',
    mx: [
      ['mx-primary.failover.soak', { down: true }],
      ['mx-backup.failover.soak', TLS],
    ],
  },
  // 421 above two sessions: the primary cools down and the backup answers meanwhile.
  busy: {
    role: 'strict',
    behaviour: '421 above the connection cap, backup MX',
    mx: [
      ['mx.busy.soak', { ...TLS, maxConnections: 2 }],
      ['mx-backup.busy.soak', TLS],
    ],
  },
  google: {
    role: 'strict',
    behaviour: 'a provider refusing the egresses mid-run',
    mx: [[BLOCK_HOST, TLS]],
  },
  catchall: {
    role: 'catch-all',
    behaviour: 'catch-all',
    mx: [['mx.catchall.soak', { ...TLS, catchAll: true }]],
    domains: 2,
  },
  busyonly: {
    role: 'dark',
    behaviour: '421 above the connection cap, single MX',
    mx: [['mx.busyonly.soak', { ...TLS, maxConnections: 1 }]],
  },
  tarpit: { role: 'dark', behaviour: 'tarpit', mx: [['mx.tarpit.soak', { ...TLS, bannerDelayMs: TARPIT_BANNER_MS }]] },
  blocked: {
    role: 'dark',
    behaviour: 'sender blocked at RCPT',
    mx: [['mx.blocked.soak', { ...TLS, blockSender: 'rcpt' }]],
  },
  blockedbanner: {
    role: 'dark',
    behaviour: 'sender blocked at the banner',
    mx: [['mx.blockedbanner.soak', { blockSender: 'banner' }]],
  },
  tlsbroken: {
    role: 'dark',
    behaviour: 'STARTTLS required and broken',
    mx: [['mx.tlsbroken.soak', { tls: 'required', tlsBroken: true }]],
  },
};

export interface SoakWorld {
  scenario: Scenario;
  domains: SoakDomain[];
  /** The known mailbox of cycle `n` at a strict domain, asked only by that cycle's idle probe (never cached before). */
  probeAddress(domain: string, cycle: number): string;
}

/** The world for at most `cycles` cycles (each has its own never-asked probe mailbox per strict domain). */
export function soakWorld(cycles: number): SoakWorld {
  const servers: Record<string, ServerSpec> = {};
  const domainSpecs: Record<string, DomainSpec> = {};
  const domains: SoakDomain[] = [];
  const strictMailboxes: Record<string, string> = {};
  for (const [first, last] of PEOPLE) strictMailboxes[`${first}.${last}`.toLowerCase()] = 'ok';
  for (let cycle = 0; cycle <= cycles; cycle++) strictMailboxes[`probe${cycle}`] = 'ok';

  for (const [key, entry] of Object.entries(ENTRIES)) {
    entry.mx.forEach(([host, spec]) => (servers[host] = spec));
    const mx = entry.mx.map(([host], index) => ({ host, priority: 10 * (index + 1) }));
    for (let d = 0; d < (entry.domains ?? 1); d++) {
      const name = entry.domains ? `${key}${d}.soak` : `${key}.soak`;
      domainSpecs[name] = {
        mx,
        mailboxes:
          entry.role === 'strict' ? strictMailboxes : { [`${PEOPLE[0][0]}.${PEOPLE[0][1]}`.toLowerCase()]: 'ok' },
        txt: ['v=spf1 mx -all'],
      };
      domains.push({ name, role: entry.role, behaviour: entry.behaviour, host: entry.mx[0][0] });
    }
  }
  const episode = Object.fromEntries(Array.from({ length: BLOCK_MAILBOXES }, (_, n) => [`egress${n}`, 'ok']));
  domainSpecs[BLOCK_DOMAIN].mailboxes = { ...strictMailboxes, ...episode };
  const stubborn: Record<string, string> = {};
  for (let i = 0; i < 50; i++) stubborn[`later${i}`] = '451 4.7.1 Greylisted, please try again later';
  domainSpecs[STUBBORN_DOMAIN] = { mx: [{ host: 'mx.tls.soak', priority: 10 }], mailboxes: stubborn };

  return {
    // Every reply batch costs an emulated round trip, so sessions overlap as on the internet.
    scenario: { defaults: { latencyMs: 5 }, servers, domains: domainSpecs },
    domains,
    probeAddress: (domain, cycle) => `probe${cycle}@${domain}`,
  };
}
