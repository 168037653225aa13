import { FeedCheckpoints, FeedPlan, type FeedRead } from './feed-plan';

/** Reads every group of the plan, `groups` at a time, as the feed does; the stream named per group, in order. */
function drain(plan: FeedPlan, groups: number, size: number): string[] {
  const order: string[] = [];
  for (let reads = plan.next(groups); reads.length > 0; reads = plan.next(groups)) {
    for (const read of reads) {
      const stream = read.stream;
      const left = stream.total - (stream.planned - read.take);
      const rows = Array.from({ length: Math.max(0, Math.min(read.take, left)) }, (_, index) => ({
        domain: stream.domain ?? 'small',
        row: stream.planned - read.take + index + 1,
      }));
      for (let group = 0; group < Math.ceil(rows.length / size); group++) order.push(stream.domain ?? 'small');
      plan.advance(read, rows);
    }
  }
  return order;
}

it('interleaves the streams in proportion to their size: a big provider is read from the start to the end', () => {
  const plan = new FeedPlan(
    [
      { domain: 'gmail.test', rows: 600 },
      { domain: 'co1.test', rows: 200 },
      { domain: 'co2.test', rows: 200 },
      { domain: null, rows: 100 },
    ],
    100,
  );
  const order = drain(plan, 2, 100);
  expect(order).toHaveLength(11);
  // Six groups of the big provider spread over the whole feed, not read one domain after another.
  const gmail = order.flatMap((stream, index) => (stream === 'gmail.test' ? [index] : []));
  expect(gmail).toHaveLength(6);
  expect(gmail[0]).toBe(0);
  expect(gmail[5]).toBeGreaterThanOrEqual(8);
  expect(order.slice(0, 4)).toEqual(expect.arrayContaining(['gmail.test', 'co1.test']));
  expect(order.filter((stream) => stream === 'small')).toHaveLength(1);
});

it('moves each stream past the rows it gave and ends it at a short read; an empty plan reads nothing', () => {
  const plan = new FeedPlan(
    [
      { domain: 'acme.test', rows: 150 },
      { domain: null, rows: 0 },
    ],
    100,
  );
  const [first] = plan.next(1);
  expect(first).toMatchObject({ stream: { domain: 'acme.test', after: null }, take: 100 });
  plan.advance(first, [
    { domain: 'acme.test', row: 3 },
    { domain: 'acme.test', row: 9 },
  ]);
  // Fewer rows than asked: the stream has nothing more (its rows were settled meanwhile).
  expect(first.stream).toMatchObject({ after: { domain: 'acme.test', row: 9 }, done: true });
  expect(plan.next(5)).toEqual([]);
  expect(new FeedPlan([], 100).next(5)).toEqual([]);
});

it('asks a stream picked more than once in a round for all its picks in one read', () => {
  const plan = new FeedPlan(
    [
      { domain: 'big.test', rows: 1_000 },
      { domain: 'small.test', rows: 100 },
    ],
    100,
  );
  // The big domain's first five groups fall due (halfway through each) before the small one's only group.
  const reads: FeedRead[] = plan.next(6);
  expect(reads.map((read) => [read.stream.domain, read.take])).toEqual([
    ['big.test', 500],
    ['small.test', 100],
  ]);
  expect(plan.domains).toEqual(['big.test', 'small.test']);
});

it('marks a domain through the groups queued with none before them outstanding, whatever order they are queued in', () => {
  const checkpoints = new FeedCheckpoints();
  const group = (domain: string, ...rows: number[]) => rows.map((row) => ({ domain, row }));
  const [a1, a2, a3] = [group('a.test', 1, 4), group('a.test', 7, 9), group('a.test', 12)];
  const b1 = group('b.test', 2, 3);
  for (const read of [a1, b1, a2, a3]) checkpoints.read(read);
  // A group read grows until it is queued: its last row then counts.
  a3.push({ domain: 'a.test', row: 15 });
  expect(checkpoints.queued(a2)).toBeNull();
  expect(checkpoints.queued(b1)).toBe(3);
  expect(checkpoints.queued(a1)).toBe(9);
  expect(checkpoints.queued(a3)).toBe(15);
  // Every group queued: nothing of the domain is held any more, and a group never read is refused.
  checkpoints.read(group('a.test', 20));
  expect(() => checkpoints.queued(group('a.test', 20))).toThrow('never read');
});
