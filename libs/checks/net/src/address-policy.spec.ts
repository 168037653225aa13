import { addressPolicy, isPublicAddress } from './address-policy';

describe('isPublicAddress', () => {
  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '142.250.27.26',
    '2a00:1450:400c:c0b::1b',
    '::ffff:8.8.8.8',
    '::ffff:808:808',
    '64:ff9b::808:808',
    '64:ff9b::8.8.8.8',
    '2002:808:808::1',
  ])('%s is public', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it.each([
    '127.0.0.1',
    '10.0.0.5',
    '172.20.1.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '203.0.113.10',
    '::',
    '::1',
    'fe80::1',
    'fe80::1%eth0',
    'fd00::1',
    'ff02::1',
    'not an ip',
  ])('%s is not', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  // Each form routes to the IPv4 address it carries, so it is judged as that address.
  it.each([
    ['IPv4-compatible', '::7f00:1'],
    ['IPv4-compatible, dotted', '::127.0.0.1'],
    ['IPv4-mapped', '::ffff:7f00:1'],
    ['IPv4-mapped, dotted', '::ffff:127.0.0.1'],
    ['IPv4-mapped, in full', '0:0:0:0:0:ffff:7f00:1'],
    ['IPv4-mapped, private', '::ffff:10.0.0.1'],
    ['IPv4-translated', '::ffff:0:7f00:1'],
    ['IPv4-translated, dotted', '::ffff:0:127.0.0.1'],
    ['6to4', '2002:7f00:1::1'],
    ['6to4 of a private network', '2002:a00:1::1'],
    ['6to4 of the metadata service', '2002:a9fe:a9fe::'],
    ['NAT64 well-known prefix', '64:ff9b::7f00:1'],
    ['NAT64 well-known prefix, dotted', '64:ff9b::169.254.169.254'],
    ['NAT64 local-use prefix', '64:ff9b:1::7f00:1'],
    ['NAT64 local-use prefix, public IPv4', '64:ff9b:1:0:808:808::'],
  ])('%s %s is not', (_form, address) => {
    expect(isPublicAddress(address)).toBe(false);
  });
});

describe('addressPolicy', () => {
  it('admits any address when private ones are allowed, and public ones only otherwise', () => {
    expect(['127.0.0.1', '::7f00:1', '8.8.8.8'].map(addressPolicy(true))).toEqual([true, true, true]);
    expect(['127.0.0.1', '::7f00:1', '8.8.8.8'].map(addressPolicy(false))).toEqual([false, false, true]);
  });

  it('never admits a name: only an address that was resolved and checked is connected to', () => {
    expect(addressPolicy(true)('localhost')).toBe(false);
  });
});
