import { isIP } from 'node:net';

/** An IP address as its octets; an IPv4-mapped IPv6 address is read as the IPv4 address it carries. */
export interface Address {
  family: 4 | 6;
  bytes: number[];
}

/** The address in `text`, or null when it is not one. */
export function parseAddress(text: string): Address | null {
  const family = isIP(text);
  if (family === 4) return { family: 4, bytes: text.split('.').map(Number) };
  if (family !== 6) return null;
  const bytes = ipv6Bytes(text.replace(/%.*$/, ''));
  // ::ffff:a.b.c.d is an IPv4 peer seen through a dual-stack socket: checks must see the IPv4 address.
  const mapped = bytes.slice(0, 10).every((byte) => byte === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  return mapped ? { family: 4, bytes: bytes.slice(12) } : { family: 6, bytes };
}

/** The 16 octets of a valid IPv6 address (`::` and a trailing dotted quad expanded). */
function ipv6Bytes(text: string): number[] {
  const groups = (part: string): number[] =>
    part === ''
      ? []
      : part.split(':').flatMap((group) => {
          if (!group.includes('.')) return [parseInt(group, 16)];
          const [a, b, c, d] = group.split('.').map(Number);
          return [(a << 8) | b, (c << 8) | d];
        });
  const [head, tail] = text.split('::');
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const words = [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  return words.flatMap((word) => [word >> 8, word & 0xff]);
}

/** Whether `address` lies in `network`/`prefix` (both of one family). */
export function inNetwork(address: Address, network: Address, prefix: number): boolean {
  if (address.family !== network.family) return false;
  for (let bit = 0; bit < prefix; bit += 8) {
    const mask = (0xff << (8 - Math.min(8, prefix - bit))) & 0xff;
    if ((address.bytes[bit / 8] & mask) !== (network.bytes[bit / 8] & mask)) return false;
  }
  return true;
}

/** The address's DNS labels, least significant first: octets for IPv4, nibbles for IPv6 (RFC 3596 §2.5). */
export function reversedLabels(address: Address): string[] {
  if (address.family === 4) return address.bytes.map(String).reverse();
  return address.bytes.flatMap((byte) => [(byte >> 4).toString(16), (byte & 0xf).toString(16)]).reverse();
}
