import { readFileSync } from 'node:fs';
import { domainToASCII } from 'node:url';
import defaultScenario from './scenarios/default.json';

/**
 * A scenario describes the mail internet a test or benchmark needs: domains with their DNS
 * records and mailboxes, and the SMTP servers (by host name) that answer for them.
 * Scenarios are plain JSON files in test/lab/scenarios.
 */

/** What a mailbox answers to RCPT TO. A string starting with a 3-digit code is sent verbatim. */
export type MailboxState = 'ok' | 'full' | 'full-temporary' | 'disabled' | string;

export type ReplyName =
  | 'banner'
  | 'accepted'
  | 'unknownUser'
  | 'full'
  | 'fullTemporary'
  | 'disabled'
  | 'greylisted'
  | 'blocked'
  | 'tooManyRecipients'
  | 'relayDenied'
  | 'tlsRequired'
  | 'tooManyConnections'
  | 'idleTimeout'
  | 'rset'
  | 'utf8Unsupported';

/** The commands of a probe's dialogue a hostile server can misbehave at (RSET: only a session's later transactions send it). */
export type SmtpStep = 'ehlo' | 'mail' | 'rcpt' | 'rset';

export interface ServerSpec {
  /** Accept every recipient of every domain it serves (Yahoo-style). */
  catchAll?: boolean;
  /** 4xx for an unseen (client, sender, recipient) triplet until this many ms have passed. */
  greylistMs?: number;
  /** Default 'offered': most of the internet's mail hosts offer STARTTLS, as the big providers do. */
  tls?: 'none' | 'offered' | 'required';
  /** Offer STARTTLS but break the handshake: TLS cannot be negotiated. */
  tlsBroken?: boolean;
  /** Advertise PIPELINING (default true). */
  pipelining?: boolean;
  /** Advertise SMTPUTF8 (default false: non-ASCII local parts are refused). */
  smtputf8?: boolean;
  /** Answer EHLO (default true); false makes clients fall back to HELO. */
  ehlo?: boolean;
  /** A session that sends nothing for this long gets 421 4.4.2 and is closed (Postfix's smtpd_timeout; default: 30 s, silently). */
  idleTimeoutMs?: number;
  /** Concurrent sessions above this get 421 and are closed. */
  maxConnections?: number;
  /** RCPTs above this in one session get 452 4.5.3. */
  maxRecipients?: number;
  /** Delay before the banner (tarpit). */
  bannerDelayMs?: number;
  /** Accepts connections and never writes a byte: no banner, no reply to anything. */
  silent?: boolean;
  /** Writes the first half of its reply to this command (EHLO or HELO, MAIL, RCPT), then nothing more. */
  stallAt?: SmtpStep;
  /** Closes the connection without a reply when this command arrives. */
  dropAfter?: SmtpStep;
  /**
   * From this command on nothing is answered, and the connection is neither closed nor reset: what a
   * client sees of a connection that a NAT or proxy on the way forgot.
   */
  vanishAt?: SmtpStep;
  /** Injected before every reply batch and the banner: one emulated internet round trip. */
  latencyMs?: number;
  /** Refuse us as a sender (blocklist) at this step. */
  blockSender?: 'banner' | 'mail' | 'rcpt';
  /** A host with an A record but nothing listening: connections are refused. */
  down?: boolean;
  /** The host name has no A record at all. */
  unresolvable?: boolean;
  /** Accepts the connection and closes it at once, before any banner: what a server that drops an address looks like. */
  hangUp?: boolean;
  /** Multi-line banner. */
  multilineBanner?: boolean;
  /** Reply texts replacing the Postfix-like defaults; `\n` separates lines; {addr} {ip} {host} are filled in. */
  replies?: Partial<Record<ReplyName, string>>;
  /**
   * Overrides by client IP (the connecting socket's address, e.g. `127.250.0.2`): servers treat the
   * prober's egresses differently (one address blocklisted, another greylisted). A session follows
   * the server's spec merged with its client's entry. Listening (`down`) and DNS (`unresolvable`)
   * cannot differ per client, and `maxConnections` counts every client's sessions.
   */
  clients?: Record<string, Partial<ServerSpec>>;
}

export interface RecordSet {
  a?: string[];
  /**
   * DNS rebinding: successive A queries get these addresses (IPs or server names) in turn, one per
   * answer, with TTL 0, e.g. `["203.0.113.10", "127.0.0.1"]`. Takes the place of `a`.
   */
  rebind?: string[];
  aaaa?: string[];
  txt?: string[];
  cname?: string;
  ns?: string[];
  mx?: Array<{ host: string; priority: number }>;
}

export interface DomainSpec extends Omit<RecordSet, 'mx'> {
  /** `null` publishes a null MX (RFC 7505: `0 .`). */
  mx?: Array<{ host: string; priority: number }> | null;
  /**
   * Records of names below the domain, by relative name (`_dmarc`, `google._domainkey`, `www`,
   * `2.0.250.127` for a DNSBL listing). `*` answers for every name below the domain that has no
   * records of its own: a DNSBL that refuses all queries answers so.
   */
  records?: Record<string, RecordSet>;
  /** DNS misbehaviour for the domain and every name below it. */
  dns?: 'servfail' | 'timeout';
  dnsDelayMs?: number;
  /** Local part → state. Unlisted local parts are unknown users. */
  mailboxes?: Record<string, MailboxState>;
  /** Every local part is accepted (the domain, not the server, is catch-all). */
  catchAll?: boolean;
  /** RDAP registration date (ISO 8601). */
  registered?: string;
  /** Local parts that have an avatar. */
  gravatars?: string[];
}

export interface Scenario {
  /** Defaults every server inherits. */
  defaults?: ServerSpec;
  servers?: Record<string, ServerSpec>;
  domains?: Record<string, DomainSpec>;
  /**
   * PTR names by IP address (v4 or v6): the reverse DNS of the prober's egresses, which its
   * self-check reads and mail servers judge. Other addresses have no PTR (NXDOMAIN).
   */
  ptr?: Record<string, string | string[]>;
  /**
   * Names whose A (or AAAA) and TXT answer is the address the query came from, like
   * `myip.opendns.com` at OpenDNS's resolvers: how the prober learns its public address.
   */
  whoami?: string[];
}

/** Lower-case A-label form, as DNS and SMTP see a name. */
export function canonicalName(name: string): string {
  const trimmed = name.trim().replace(/\.$/, '').toLowerCase();
  // Only names with Unicode need IDNA: the URL host parser reads a name ending in a number as IPv4 (`0.250.127` → `0.250.0.127`).
  return /[^\x00-\x7f]/.test(trimmed) ? domainToASCII(trimmed) || trimmed : trimmed;
}

/** Rejects scenarios that reference servers or states that do not exist, so a typo fails loudly. */
export function validateScenario(scenario: Scenario): void {
  const servers = new Set(Object.keys(scenario.servers ?? {}).map(canonicalName));
  const states = new Set(['ok', 'full', 'full-temporary', 'disabled']);
  for (const [domain, spec] of Object.entries(scenario.domains ?? {})) {
    for (const { host } of spec.mx ?? []) {
      const target = canonicalName(host);
      const known = servers.has(target) || Object.keys(scenario.domains ?? {}).some((d) => canonicalName(d) === target);
      if (!known) {
        throw new Error(
          `scenario: ${domain} has MX ${host}, which is neither a server nor a domain (declare a server with "unresolvable": true for a dangling MX)`,
        );
      }
    }
    for (const [local, state] of Object.entries(spec.mailboxes ?? {})) {
      if (!states.has(state) && !/^[245]\d\d[ -]/.test(state)) {
        throw new Error(`scenario: mailbox ${local}@${domain} has unknown state ${JSON.stringify(state)}`);
      }
    }
  }
}

/** The lab's standard world: one domain per behaviour (see README, "The mail lab"). */
export const DEFAULT_SCENARIO = defaultScenario as unknown as Scenario;

/** Reads a scenario file (JSON), or a deep copy of the default one that the caller may tweak. */
export function loadScenario(path?: string): Scenario {
  if (!path) return structuredClone(DEFAULT_SCENARIO);
  return JSON.parse(readFileSync(path, 'utf8')) as Scenario;
}
