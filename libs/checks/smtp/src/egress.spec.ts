import { blockKey, buildEgress, EgressPool, MemoryEgressBlocks, STRIKE_MEMORY_MS, type EgressBlock } from './egress';

/** The pool's rules on a clock the test moves: order, reservations, back-offs that double, strikes forgotten. */
let now = 1_000_000;
const clock = () => now;

function pool(...specs: Array<[string, string[] | null]>): EgressPool {
  const egresses = specs.map(([address, providers]) =>
    buildEgress({ id: `local:${address}`, localAddress: address, proxy: null, providers }),
  );
  return new EgressPool(egresses, new MemoryEgressBlocks(clock), 10_000, clock);
}

const ids = (egresses: Array<{ id: string }>) => egresses.map((egress) => egress.id);

it('keys blocks by the provider when one fleet serves all its domains, else by the MX hosts’ registrable domain', () => {
  expect(blockKey('google', ['aspmx.l.google.com'])).toBe('google');
  // Each customer's own gateway, or its own server at a hosting company: its rules are its own.
  expect(blockKey('proofpoint', ['mx0a-00123.pphosted.com'])).toBe('pphosted.com');
  // The public suffix list knows a hosting company's customers' names: each server is its own key.
  expect(blockKey('amazon', ['ec2-203-0-113-7.compute-1.amazonaws.com'])).toBe(
    'ec2-203-0-113-7.compute-1.amazonaws.com',
  );
  expect(blockKey(null, ['mx1.mail.example.co.uk', 'mx2.mail.example.co.uk'])).toBe('example.co.uk');
  expect(blockKey(null, ['mx.strict.test'])).toBe('strict.test');
});

it('offers the egresses reserved for a key first, then the general ones, each in SMTP_EGRESS order', () => {
  const egresses = pool(
    ['10.0.0.1', null],
    ['10.0.0.2', ['yahoo']],
    ['10.0.0.3', null],
    ['10.0.0.4', ['yahoo', 'microsoft']],
  );
  expect(ids(egresses.usable('yahoo'))).toEqual([
    'local:10.0.0.2',
    'local:10.0.0.4',
    'local:10.0.0.1',
    'local:10.0.0.3',
  ]);
  expect(ids(egresses.usable('microsoft'))).toEqual(['local:10.0.0.4', 'local:10.0.0.1', 'local:10.0.0.3']);
  expect(ids(egresses.usable('example.com'))).toEqual(['local:10.0.0.1', 'local:10.0.0.3']);
});

it('leaves a blocked egress out for its key only, for a back-off that doubles at each block in a row, up to 8×', async () => {
  const egresses = pool(['10.0.0.1', null], ['10.0.0.2', null]);
  const blocked: EgressBlock[] = [];
  egresses.observe({ blocked: (block) => blocked.push(block) });
  await egresses.block('local:10.0.0.1', 'google', '554 5.7.1 blocked using zen.spamhaus.org');
  expect(ids(egresses.usable('google'))).toEqual(['local:10.0.0.2']);
  expect(ids(egresses.usable('microsoft'))).toEqual(['local:10.0.0.1', 'local:10.0.0.2']);
  // A second refusal while the block holds (a probe in flight) changes nothing.
  await egresses.block('local:10.0.0.1', 'google', 'again');
  expect(blocked).toHaveLength(1);
  const backOffs: number[] = [];
  for (let strike = 0; strike < 5; strike++) {
    const block = egresses.blockOf('local:10.0.0.1', 'google') as EgressBlock;
    backOffs.push(block.until - block.since);
    now = block.until;
    expect(ids(egresses.usable('google'))).toEqual(['local:10.0.0.1', 'local:10.0.0.2']);
    await egresses.block('local:10.0.0.1', 'google', 'still refused');
  }
  expect(backOffs).toEqual([10_000, 20_000, 40_000, 80_000, 80_000]);
  expect(egresses.blocks().map((block) => block.strikes)).toEqual([6]);
});

it('forgets the strikes once a probe gets through, or a day after the last block ended', async () => {
  const egresses = pool(['10.0.0.1', null]);
  const cleared: string[] = [];
  egresses.observe({ cleared: (egress, key) => cleared.push(`${egress}|${key}`) });
  await egresses.block('local:10.0.0.1', 'google', 'refused');
  // An answer from a probe that began before the block does not lift it.
  await egresses.through('local:10.0.0.1', 'google');
  expect(egresses.blockOf('local:10.0.0.1', 'google')).not.toBeNull();
  now += 10_000;
  await egresses.through('local:10.0.0.1', 'google');
  expect(cleared).toEqual(['local:10.0.0.1|google']);
  await egresses.block('local:10.0.0.1', 'google', 'refused');
  expect(egresses.blockOf('local:10.0.0.1', 'google')?.strikes).toBe(1);
  // Nothing to forget: no observer hears of it.
  await egresses.through('local:10.0.0.1', 'microsoft');
  expect(cleared).toHaveLength(1);

  now += 10_000 + STRIKE_MEMORY_MS + 1;
  expect(egresses.blockOf('local:10.0.0.1', 'google')).toBeNull();
  await egresses.block('local:10.0.0.1', 'google', 'refused');
  expect(egresses.blockOf('local:10.0.0.1', 'google')?.strikes).toBe(1);
});
