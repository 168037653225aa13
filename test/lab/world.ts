import { createHash } from 'node:crypto';
import { isIP, isIPv4, isIPv6 } from 'node:net';
import {
  canonicalName,
  validateScenario,
  type DomainSpec,
  type MailboxState,
  type RecordSet,
  type Scenario,
  type ServerSpec,
} from './scenario';

export interface LabServer {
  name: string;
  ip: string;
  spec: ServerSpec;
}

/** What a name holds: the scenario's record types, and PTR names for reverse names. */
export type NameRecords = RecordSet & { ptr?: string[] };

export type RecipientAnswer = { kind: 'mailbox'; state: MailboxState } | { kind: 'unknown' } | { kind: 'not-served' };

/** The name a PTR query for `ip` asks about: reversed octets under in-addr.arpa, reversed nibbles under ip6.arpa. */
function reverseName(ip: string): string {
  if (isIPv4(ip)) return `${ip.split('.').reverse().join('.')}.in-addr.arpa`;
  if (!isIPv6(ip) || ip.includes('.')) throw new Error(`scenario: PTR key ${ip} is not an IP address in hex groups`);
  const groups = (part: string) => (part ? part.split(':') : []);
  const [head, tail] = ip.toLowerCase().split('::');
  const zeros = tail === undefined ? [] : Array<string>(8 - groups(head).length - groups(tail).length).fill('0');
  const hex = [...groups(head), ...zeros, ...groups(tail ?? '')].map((group) => group.padStart(4, '0')).join('');
  return `${[...hex].reverse().join('.')}.ip6.arpa`;
}

/**
 * The scenario compiled into what the lab's servers answer from: addresses for every server,
 * a flat DNS table, and mailbox look-ups per domain.
 */
export class World {
  readonly servers: LabServer[];
  private readonly serverByName = new Map<string, LabServer>();
  private readonly domains = new Map<string, DomainSpec>();
  private readonly records = new Map<string, NameRecords>();
  private readonly whoamiNames: Set<string>;
  private readonly avatars = new Set<string>();
  /** Mailbox names by lower-case local part, per mailboxes object: a bench domain holds tens of thousands. */
  private readonly mailboxIndex = new WeakMap<Record<string, MailboxState>, Map<string, string>>();

  /** `network` is the first two octets of the lab's 127/8 block, e.g. `127.77`. */
  constructor(
    readonly scenario: Scenario,
    readonly network: string,
  ) {
    validateScenario(scenario);
    const names = Object.keys(scenario.servers ?? {})
      .map(canonicalName)
      .sort();
    const specs = new Map(Object.entries(scenario.servers ?? {}).map(([name, spec]) => [canonicalName(name), spec]));
    this.servers = names.map((name, index) => ({
      name,
      ip: `${network}.${1 + Math.floor(index / 250)}.${1 + (index % 250)}`,
      spec: { ...scenario.defaults, ...specs.get(name) },
    }));
    for (const server of this.servers) {
      this.serverByName.set(server.name, server);
      if (!server.spec.unresolvable) this.addRecords(server.name, { a: [server.ip] });
    }
    for (const [rawName, spec] of Object.entries(scenario.domains ?? {})) {
      const domain = canonicalName(rawName);
      this.domains.set(domain, spec);
      const { mx, a, rebind, aaaa, txt, cname, ns } = spec;
      this.addRecords(domain, {
        a: a?.map((target) => this.address(target)),
        rebind: rebind?.map((target) => this.address(target)),
        aaaa,
        txt,
        cname: cname ? canonicalName(cname) : undefined,
        ns,
        mx:
          mx === null
            ? [{ host: '', priority: 0 }]
            : mx?.map(({ host, priority }) => ({ host: canonicalName(host), priority })),
      });
      for (const [relative, set] of Object.entries(spec.records ?? {})) {
        this.addRecords(`${canonicalName(relative)}.${domain}`, {
          ...set,
          a: set.a?.map((target) => this.address(target)),
          rebind: set.rebind?.map((target) => this.address(target)),
        });
      }
      for (const local of spec.gravatars ?? []) {
        this.avatars.add(createHash('sha256').update(`${local}@${rawName}`.toLowerCase()).digest('hex'));
      }
    }
    for (const [ip, names] of Object.entries(scenario.ptr ?? {})) {
      this.addRecords(reverseName(ip), { ptr: [names].flat().map(canonicalName) });
    }
    this.whoamiNames = new Set((scenario.whoami ?? []).map(canonicalName));
  }

  /** Addresses in `a` lists may name a lab server instead of giving an IP. */
  private address(target: string): string {
    if (isIP(target)) return target;
    const server = this.serverByName.get(canonicalName(target));
    if (!server) throw new Error(`scenario: A record target ${target} is neither an IP nor a server`);
    return server.ip;
  }

  private addRecords(name: string, set: NameRecords): void {
    const existing = this.records.get(name) ?? {};
    for (const [key, value] of Object.entries(set) as Array<[keyof NameRecords, NameRecords[keyof NameRecords]]>) {
      if (value !== undefined) Object.assign(existing, { [key]: value });
    }
    this.records.set(name, existing);
  }

  server(name: string): LabServer {
    const server = this.serverByName.get(canonicalName(name));
    if (!server) throw new Error(`no lab server named ${name}`);
    return server;
  }

  /** A name's own records, or else those of the nearest wildcard (`*.` a domain) above it. */
  recordsOf(name: string): NameRecords | undefined {
    const own = this.records.get(name);
    if (own) return own;
    for (let dot = name.indexOf('.'); dot >= 0; dot = name.indexOf('.', dot + 1)) {
      const wildcard = this.records.get(`*${name.slice(dot)}`);
      if (wildcard) return wildcard;
    }
    return undefined;
  }

  /** Whether the name answers with the address of whoever asks. */
  isWhoami(name: string): boolean {
    return this.whoamiNames.has(name);
  }

  /** True when the name owns records or has names below it (an empty non-terminal). */
  nameExists(name: string): boolean {
    if (this.records.has(name)) return true;
    for (const known of this.records.keys()) if (known.endsWith(`.${name}`)) return true;
    return false;
  }

  /** The nearest scenario domain at or above `name`, whose DNS behaviour applies. */
  zoneOf(name: string): DomainSpec | undefined {
    for (let candidate = name; candidate; candidate = candidate.slice(candidate.indexOf('.') + 1 || candidate.length)) {
      const spec = this.domains.get(candidate);
      if (spec) return spec;
    }
    return undefined;
  }

  domain(name: string): DomainSpec | undefined {
    return this.domains.get(canonicalName(name));
  }

  /** Whether `server` is an MX (or the implicit MX) of `domain`. */
  serves(server: LabServer, domain: string): boolean {
    const records = this.records.get(domain);
    if (!records) return false;
    if (records.mx?.some((mx) => mx.host === server.name)) return true;
    return !records.mx && (records.a ?? []).includes(server.ip);
  }

  /** `serverSpec` is the server's behaviour towards the asking client (catch-all may differ per client). */
  recipient(server: LabServer, serverSpec: ServerSpec, address: string): RecipientAnswer {
    const at = address.lastIndexOf('@');
    const local = address.slice(0, at);
    const domain = canonicalName(address.slice(at + 1));
    if (at < 1 || !this.serves(server, domain)) return { kind: 'not-served' };
    const spec = this.domains.get(domain) ?? {};
    const state = this.mailbox(spec.mailboxes ?? {}, local);
    if (state) return { kind: 'mailbox', state };
    if (serverSpec.catchAll || spec.catchAll) return { kind: 'mailbox', state: 'ok' };
    return { kind: 'unknown' };
  }

  /** A mailbox's state, its local part matched case-insensitively (a scenario's mailboxes are fixed once the lab runs). */
  private mailbox(mailboxes: Record<string, MailboxState>, local: string): MailboxState | undefined {
    if (Object.hasOwn(mailboxes, local)) return mailboxes[local];
    let names = this.mailboxIndex.get(mailboxes);
    if (!names) {
      names = new Map(Object.keys(mailboxes).map((name) => [name.toLowerCase(), name]));
      this.mailboxIndex.set(mailboxes, names);
    }
    const name = names.get(local.toLowerCase());
    return name === undefined ? undefined : mailboxes[name];
  }

  registered(domain: string): string | undefined {
    return this.domains.get(canonicalName(domain))?.registered;
  }

  hasAvatar(sha256: string): boolean {
    return this.avatars.has(sha256.toLowerCase());
  }
}
