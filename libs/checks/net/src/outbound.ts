import { lookup as systemLookup, Resolver } from 'node:dns/promises';
import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { AppConfig } from '@mailguard/config';
import { addressPolicy, type AddressPolicy } from './address-policy';

/** A host name's addresses, IPv4 and IPv6. */
export type AddressResolver = (name: string) => Promise<string[]>;

/** Through DNS_SERVERS when set, as every check resolves; else the system's own way (hosts file included). */
export function addressResolver(servers: string[] | null, timeoutMs = 4_000): AddressResolver {
  if (!servers)
    return async (name) => (await systemLookup(name, { all: true, verbatim: true })).map((entry) => entry.address);
  const resolver = new Resolver({ timeout: timeoutMs, tries: 2 });
  resolver.setServers(servers);
  return async (name) => {
    const answers = await Promise.allSettled([resolver.resolve4(name), resolver.resolve6(name)]);
    const addresses = answers.flatMap((answer) => (answer.status === 'fulfilled' ? answer.value : []));
    if (addresses.length > 0) return addresses;
    const failure = answers.find((answer) => answer.status === 'rejected');
    throw failure ? failure.reason : Object.assign(new Error(`${name} has no address`), { code: 'ENOTFOUND' });
  };
}

/** A connection the address policy forbids: nothing was sent. */
export class RefusedAddressError extends Error {
  readonly code = 'EADDRREFUSED';

  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    super(
      host === address
        ? `${address} is a private, loopback or reserved address`
        : `${host} resolves to ${address}, a private, loopback or reserved address`,
    );
    this.name = 'RefusedAddressError';
  }
}

/** The name's addresses (of one family, when asked), every one of them admitted by the policy. */
async function checkedAddresses(
  resolve: AddressResolver,
  permits: AddressPolicy,
  hostname: string,
  family?: number,
): Promise<string[]> {
  const addresses = (await resolve(hostname)).filter((address) => !family || isIP(address) === family);
  if (addresses.length === 0)
    throw Object.assign(new Error(`${hostname} has no IPv${family} address`), { code: 'ENOTFOUND' });
  // One address refused refuses the name: a host mixing public and private addresses is not trusted.
  const refused = addresses.find((address) => !permits(address));
  if (refused !== undefined) throw new RefusedAddressError(hostname, refused);
  return addresses;
}

/**
 * The `lookup` of every outbound socket: the name is resolved once, every address it has is checked,
 * and the socket connects to exactly those addresses. Checking and connecting never resolve
 * separately, so a name that answers public and then 127.0.0.1 (DNS rebinding) gets nowhere.
 */
export function pinnedLookup(resolve: AddressResolver, permits: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
    checkedAddresses(resolve, permits, hostname, family)
      .then((addresses) => {
        if (options.all)
          callback(
            null,
            addresses.map((address) => ({ address, family: isIP(address) })),
          );
        else callback(null, addresses[0], isIP(addresses[0]));
      })
      .catch((error: NodeJS.ErrnoException) => callback(error, '', 0));
  };
}

/** The URL's host without the brackets of an IPv6 literal. */
const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

export interface OutboundRequest {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  signal: AbortSignal;
  /** Redirects to follow, each hop checked like the first; 0 (default): a 3xx is the answer. */
  maxRedirects?: number;
}

export interface OutboundResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The whole body as text. */
  text(): Promise<string>;
}

/** Connections to one host at once, per process (the rest of its requests wait in the agent). */
const MAX_SOCKETS_PER_HOST = 256;

/**
 * Every HTTP request MailGuard makes of its own accord (webhooks, RDAP, avatars): only to
 * addresses the policy admits, checked where the socket connects, on every redirect hop.
 */
export class Outbound {
  private readonly agents: { http: HttpAgent; https: HttpsAgent };

  constructor(
    private readonly permits: AddressPolicy,
    private readonly resolve: AddressResolver,
  ) {
    const lookup = pinnedLookup(resolve, permits);
    // Kept-alive connections: a list asks the same avatar and RDAP hosts thousands of times. A
    // scoring worker concludes 40 list groups at once, each asking avatars 32 at a time: at 64
    // sockets per host most of those waited in the agent, and the avatars were half of a group's
    // time (issue 33); at a real round trip of 50 ms, 64 sockets answer at most 77,000 addresses a minute.
    this.agents = {
      http: new HttpAgent({ keepAlive: true, maxSockets: MAX_SOCKETS_PER_HOST, lookup }),
      https: new HttpsAgent({ keepAlive: true, maxSockets: MAX_SOCKETS_PER_HOST, lookup }),
    };
  }

  /**
   * Throws unless the URL's host is an address, or a name whose addresses, the policy admits: an
   * early answer (a webhook URL at upload), not a licence — every connection is checked again.
   */
  async checkHost(url: URL): Promise<void> {
    if (!this.checkLiteral(url)) await checkedAddresses(this.resolve, this.permits, hostOf(url));
  }

  /** Node connects to an address literal without a lookup: such a host is checked here. Whether it was one. */
  private checkLiteral(url: URL): boolean {
    const host = hostOf(url);
    if (!isIP(host)) return false;
    if (!this.permits(host)) throw new RefusedAddressError(host, host);
    return true;
  }

  async request(url: string | URL, options: OutboundRequest, redirects = 0): Promise<OutboundResponse> {
    const target = new URL(url);
    const secure = target.protocol === 'https:';
    if (!secure && target.protocol !== 'http:') throw new Error(`refusing to fetch ${target.protocol} URL`);
    this.checkLiteral(target);
    const headers =
      options.body === undefined
        ? options.headers
        : { ...options.headers, 'content-length': String(Buffer.byteLength(options.body)) };
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const request = (secure ? httpsRequest : httpRequest)(
        target,
        {
          method: options.method ?? 'GET',
          headers,
          agent: secure ? this.agents.https : this.agents.http,
          signal: options.signal,
        },
        resolve,
      );
      request.on('error', reject);
      request.end(options.body);
    });
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    if (status >= 300 && status < 400 && location && redirects < (options.maxRedirects ?? 0)) {
      response.resume();
      return this.request(new URL(location, target), options, redirects + 1);
    }
    const body = new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      response.on('error', reject);
    });
    // Read whether or not anyone asks, so that an unread body never holds the connection.
    body.catch(() => undefined);
    return { status, headers: response.headers, text: () => body };
  }
}

/** The outbound HTTP of a process: DNS_SERVERS to resolve, ALLOW_PRIVATE_MX to decide. */
export function createOutbound(config: AppConfig): Outbound {
  return new Outbound(addressPolicy(config.smtp.allowPrivateMx), addressResolver(config.dns.servers));
}
