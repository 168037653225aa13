import { BlockList, isIP } from 'node:net';

/**
 * Addresses MailGuard never connects to unless ALLOW_PRIVATE_MX=true — MX hosts, webhook targets and
 * the HTTP look-ups alike: a hostile domain or URL could otherwise point us at our own network (SSRF).
 */
const NON_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
  ['255.255.255.255', 32],
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
// 64:ff9b:1::/48 is local-use NAT64 (RFC 8215): where it puts the IPv4 address is each network's choice.
for (const [network, prefix] of [
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001:db8::', 32],
  ['2001::', 23],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv6');
}

/** The eight 16-bit groups of an IPv6 address (a dotted IPv4 tail included); null when it has a zone. */
function ipv6Groups(address: string): number[] | null {
  if (address.includes('%')) return null;
  let text = address.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const parse = (part: string | undefined) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const front = parse(head);
  const back = parse(tail);
  return tail === undefined ? front : [...front, ...Array<number>(8 - front.length - back.length).fill(0), ...back];
}

const ipv4Of = (high: number, low: number) => [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');

/**
 * The IPv4 address an IPv6 address carries, where routing delivers it to that IPv4 host:
 * IPv4-compatible (::a.b.c.d), mapped (::ffff:a.b.c.d), translated (::ffff:0:a.b.c.d),
 * NAT64 (64:ff9b::a.b.c.d) and 6to4 (2002:aabb:ccdd::/48).
 */
function embeddedIpv4(groups: number[]): string | null {
  const zeros = (from: number, to: number) => groups.slice(from, to).every((group) => group === 0);
  if (zeros(0, 6) || (zeros(0, 5) && groups[5] === 0xffff) || (zeros(0, 4) && groups[4] === 0xffff && groups[5] === 0))
    return ipv4Of(groups[6], groups[7]);
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zeros(2, 6)) return ipv4Of(groups[6], groups[7]);
  if (groups[0] === 0x2002) return ipv4Of(groups[1], groups[2]);
  return null;
}

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 4) return !NON_PUBLIC.check(address, 'ipv4');
  const groups = ipv6Groups(address);
  if (!groups) return false;
  // Judged by the IPv4 address it carries: ::7f00:1 is 127.0.0.1 however it is written.
  const ipv4 = embeddedIpv4(groups);
  if (ipv4) return isPublicAddress(ipv4);
  return !NON_PUBLIC.check(address, 'ipv6');
}

/** Whether MailGuard may connect to an address: any one when private ones are allowed (ALLOW_PRIVATE_MX), else public ones only. */
export type AddressPolicy = (address: string) => boolean;

export function addressPolicy(allowPrivate: boolean): AddressPolicy {
  return allowPrivate ? (address) => isIP(address) !== 0 : isPublicAddress;
}
