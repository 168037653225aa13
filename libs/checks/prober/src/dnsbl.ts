import { lookupFailure, type DnsResolver } from '@mailguard/dns';
import { inNetwork, parseAddress, reversedLabels, type Address } from './address';

export interface DnsblOutcome {
  zone: string;
  /**
   * listed: the list holds the address; clear: it does not (NXDOMAIN or NODATA); refused: the list
   * would not answer this resolver (127.255.255.0/24), so nothing is known; error: no usable answer
   * (DNS failure, or addresses outside 127/8, which only a broken or hijacking resolver gives).
   */
  status: 'listed' | 'clear' | 'refused' | 'error';
  /** The A answers, as given. */
  codes: string[];
  /** The list's TXT text, when listed and it gave one. */
  reason: string | null;
}

function addressOf(ip: string): Address {
  const address = parseAddress(ip);
  if (!address) throw new TypeError(`not an IP address: ${ip}`);
  return address;
}

/** The name a DNSBL is asked under: `2.0.250.127` for 127.250.0.2, 32 nibbles for IPv6. */
export function reversedName(ip: string): string {
  return reversedLabels(addressOf(ip)).join('.');
}

/** The address's PTR name: `….in-addr.arpa` or `….ip6.arpa`. */
export function arpaName(ip: string): string {
  const address = addressOf(ip);
  return `${reversedLabels(address).join('.')}.${address.family === 4 ? 'in-addr' : 'ip6'}.arpa`;
}

const LOOPBACK = parseAddress('127.0.0.0') as Address;
/** Return codes lists use to say "not answering you" (Spamhaus: public or unregistered resolvers, over quota). */
const REFUSAL = parseAddress('127.255.255.0') as Address;

/** Asks the DNSBL `zone` whether it lists `ip`. */
export async function queryDnsbl(resolver: DnsResolver, ip: string, zone: string): Promise<DnsblOutcome> {
  const name = `${reversedName(ip)}.${zone.replace(/\.$/, '')}`;
  let codes: string[];
  try {
    codes = await resolver.resolve4(name);
  } catch (error) {
    return { zone, status: lookupFailure(error) === 'error' ? 'error' : 'clear', codes: [], reason: null };
  }
  const answers = codes.map((code) => parseAddress(code) as Address);
  if (answers.length === 0) return { zone, status: 'clear', codes, reason: null };
  // An answer outside 127/8 makes every answer suspect, a refusal included.
  if (answers.some((answer) => !inNetwork(answer, LOOPBACK, 8))) return { zone, status: 'error', codes, reason: null };
  if (answers.some((answer) => inNetwork(answer, REFUSAL, 24))) return { zone, status: 'refused', codes, reason: null };
  const reason = await resolver.resolveTxt(name).then(
    (records) => records.map((chunks) => chunks.join('')).join(' ') || null,
    // The listing stands without its explanation.
    () => null,
  );
  return { zone, status: 'listed', codes, reason };
}
