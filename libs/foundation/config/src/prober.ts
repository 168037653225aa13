import { isIP } from 'node:net';
import { isHostname, type EnvReader } from './env-reader';
import { isProviderId, PROVIDER_IDS } from './providers';

export interface SocksProxyConfig {
  host: string;
  port: number;
  username: string | null;
  password: string | null;
}

/** One way out to port 25 (docs/configuration.md `SMTP_EGRESS`). */
export interface EgressConfig {
  /** How operators, metrics and readiness name it: `default`, `local:<ip>`, `socks5://host:port` (never credentials). */
  id: string;
  /** `local:<ip>`: the source address the socket binds. */
  localAddress: string | null;
  proxy: SocksProxyConfig | null;
  /** `@provider,…`: the providers (or MX domains) it alone serves; null serves every one. */
  providers: string[] | null;
}

/** A resolver asked for the address it sees us connect from (`myip.opendns.com@resolver1.opendns.com`). */
export interface PublicIpLookup {
  name: string;
  /** Host name or IP of the DNS server, asked over TCP through the egress. */
  server: string;
  port: number;
}

export interface Canary {
  host: string;
  /** null: SMTP_PORT. */
  port: number | null;
}

export interface ProberConfig {
  /** At least one: `default` (the host's route, or SMTP_PROXY) when SMTP_EGRESS is unset. */
  egress: EgressConfig[];
  /** PUBLIC_IP: what the egresses that do not know their own address look like from outside. */
  publicIp: string | null;
  publicIpLookup: PublicIpLookup[];
  canaries: Canary[];
  dnsblZones: string[];
  /** Minutes between self-checks after the one at start-up; 0: start-up only. */
  checkMinutes: number;
  /** The first back-off of an egress a provider refused (doubled at each repeat, up to 8×). */
  blockSeconds: number;
}

/** Mail hosts of the big providers: a banner from any of them means port 25 is open. */
const DEFAULT_CANARIES = 'gmail-smtp-in.l.google.com,mx1.hotmail.com,mta5.am0.yahoodns.net';
/** Names, not addresses: where DNS does not answer (a closed network), nothing is sent anywhere. */
const DEFAULT_PUBLIC_IP_LOOKUP = 'myip.opendns.com@resolver1.opendns.com,myip.opendns.com@resolver2.opendns.com';
const DEFAULT_DNSBL_ZONES = 'zen.spamhaus.org,b.barracudacentral.org,bl.spamcop.net';

function socksProxy(url: URL): SocksProxyConfig {
  return {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port ? Number(url.port) : 1080,
    username: url.username ? decodeURIComponent(url.username) : null,
    password: url.password ? decodeURIComponent(url.password) : null,
  };
}

function socksId(proxy: SocksProxyConfig): string {
  const host = isIP(proxy.host) === 6 ? `[${proxy.host}]` : proxy.host;
  return `socks5://${host}:${proxy.port}`;
}

function parseUrl(text: string): URL | null {
  try {
    const url = new URL(text);
    return url.protocol === 'socks5:' && url.hostname ? url : null;
  } catch {
    return null;
  }
}

/**
 * One egress of SMTP_EGRESS, without its provider list. A socks5 URL's last `@` starts a provider
 * suffix when the URL before it has credentials of its own (`socks5://u:p@host:port@yahoo`) or
 * what follows is a provider's name (`socks5://host:port@yahoo`); else it is the URL's own
 * credentials' `@` (`socks5://user:1234@proxy.example.com`).
 */
function egressOf(text: string): { egress: EgressConfig; providers: string | null } | null {
  if (text.startsWith('local:')) {
    const [written, providers] = text.slice('local:'.length).split('@', 2);
    if (!isIP(written)) return null;
    // One spelling, as resolvers write addresses back: the self-check compares them.
    const address = written.toLowerCase();
    return {
      egress: { id: `local:${address}`, localAddress: address, proxy: null, providers: null },
      providers: providers ?? null,
    };
  }
  if (!text.startsWith('socks5://')) return null;
  const at = text.lastIndexOf('@');
  const head = text.slice(0, at);
  const suffix = at > 0 && (head.includes('@') || isProviderId(text.slice(at + 1).toLowerCase()));
  const before = suffix ? parseUrl(head) : null;
  const url = before ?? parseUrl(text);
  if (!url) return null;
  const proxy = socksProxy(url);
  return {
    egress: { id: socksId(proxy), localAddress: null, proxy, providers: null },
    providers: before ? text.slice(at + 1) : null,
  };
}

/**
 * SMTP_EGRESS: `local:<ip>` or `socks5://user:pass@host:port`, comma-separated, each optionally
 * followed by `@provider,provider` (the items after it that are not egresses belong to its list).
 */
function parseEgress(read: EnvReader, raw: string): EgressConfig[] | null {
  const egresses: EgressConfig[] = [];
  const problem = (message: string) => {
    read.problems.push(`SMTP_EGRESS ${message}`);
    return null;
  };
  for (const item of raw.split(',').map((part) => part.trim())) {
    if (item === '') return problem('has an empty item');
    if (item.startsWith('local:') || item.startsWith('socks5://')) {
      const parsed = egressOf(item);
      if (!parsed)
        return problem(
          `item ${JSON.stringify(item.replace(/\/\/.*@/, '//<redacted>@'))} is neither local:<ip> nor socks5://host:port`,
        );
      if (egresses.some((egress) => egress.id === parsed.egress.id)) return problem(`names ${parsed.egress.id} twice`);
      egresses.push({ ...parsed.egress, providers: parsed.providers === null ? null : [parsed.providers] });
      continue;
    }
    const last = egresses[egresses.length - 1];
    if (!last?.providers) return problem(`item ${JSON.stringify(item)} is not an egress (local:<ip> or socks5://…)`);
    last.providers.push(item);
  }
  for (const egress of egresses) {
    for (const provider of egress.providers ?? []) {
      const name = provider.toLowerCase();
      if (!isProviderId(name) && !(name.includes('.') && isHostname(name)))
        return problem(
          `reserves ${egress.id} for ${JSON.stringify(provider)}: name a provider (${PROVIDER_IDS.join(', ')}) or an MX domain`,
        );
    }
    if (egress.providers) egress.providers = egress.providers.map((provider) => provider.toLowerCase());
  }
  // Mail of every other provider would have no way out.
  if (egresses.every((egress) => egress.providers !== null))
    return problem('reserves every egress for some providers: leave at least one for all the others');
  return egresses;
}

function parseLookups(read: EnvReader, name: string, raw: string): PublicIpLookup[] {
  const lookups: PublicIpLookup[] = [];
  for (const item of raw.split(',').map((part) => part.trim())) {
    const match = /^([^@\s]+)@(\[[^\]]+\]|[^:\s]+)(?::(\d+))?$/.exec(item);
    const server = match?.[2].replace(/^\[|\]$/g, '');
    const port = match?.[3] ? Number(match[3]) : 53;
    if (
      !match ||
      !isHostname(match[1]) ||
      !server ||
      !(isIP(server) || isHostname(server)) ||
      port < 1 ||
      port > 65535
    ) {
      read.problems.push(`${name} must be a comma list of name@server[:port] (got ${JSON.stringify(item)})`);
      return [];
    }
    lookups.push({ name: match[1].toLowerCase(), server, port });
  }
  return lookups;
}

function parseCanaries(read: EnvReader, raw: string): Canary[] {
  const canaries: Canary[] = [];
  for (const item of raw.split(',').map((part) => part.trim())) {
    const match = /^(\[[^\]]+\]|[^:\s]+)(?::(\d+))?$/.exec(item);
    const host = match?.[1].replace(/^\[|\]$/g, '');
    const port = match?.[2] ? Number(match[2]) : null;
    if (!host || !(isIP(host) || isHostname(host)) || (port !== null && (port < 1 || port > 65535))) {
      read.problems.push(`PROBER_CANARIES must be a comma list of host[:port] (got ${JSON.stringify(item)})`);
      return [];
    }
    canaries.push({ host: host.toLowerCase(), port });
  }
  return canaries;
}

/** docs/configuration.md and docs/production.md: the prober's egresses and its self-check. */
export function readProberConfig(read: EnvReader): ProberConfig {
  const proxyUrl = read.url('SMTP_PROXY', ['socks5:'], null);
  const egressRaw = read.string('SMTP_EGRESS', null);
  let egress: EgressConfig[] | null = null;
  if (egressRaw !== null) {
    if (proxyUrl)
      read.problems.push('SMTP_PROXY and SMTP_EGRESS are both set: SMTP_PROXY is one socks5 egress, set one');
    egress = parseEgress(read, egressRaw);
  }
  if (!egress?.length) {
    const proxy = proxyUrl ? socksProxy(proxyUrl) : null;
    egress = [{ id: proxy ? socksId(proxy) : 'default', localAddress: null, proxy, providers: null }];
  }
  const publicIp = read.string('PUBLIC_IP', null)?.toLowerCase() ?? null;
  if (publicIp !== null && !isIP(publicIp))
    read.problems.push(`PUBLIC_IP must be an IPv4 or IPv6 address (got ${JSON.stringify(publicIp)})`);
  const zones = read
    .string('DNSBL_ZONES', DEFAULT_DNSBL_ZONES)
    .split(',')
    .map((zone) => zone.trim().toLowerCase())
    .filter((zone) => zone !== '');
  for (const zone of zones)
    if (!isHostname(zone))
      read.problems.push(`DNSBL_ZONES must be a comma list of DNS zones (got ${JSON.stringify(zone)})`);
  return {
    egress,
    publicIp: publicIp !== null && isIP(publicIp) ? publicIp : null,
    publicIpLookup: parseLookups(read, 'PUBLIC_IP_LOOKUP', read.string('PUBLIC_IP_LOOKUP', DEFAULT_PUBLIC_IP_LOOKUP)),
    canaries: parseCanaries(read, read.string('PROBER_CANARIES', DEFAULT_CANARIES)),
    dnsblZones: zones,
    checkMinutes: read.int('PROBER_CHECK_MINUTES', 60, 0, 10_080),
    blockSeconds: read.int('PROBER_BLOCK_SECONDS', 600, 1, 86_400),
  };
}
