/** Where a stream of the feed has read up to (keyset paging): its last domain and row. */
export interface FeedCursor {
  domain: string;
  row: number;
}

/** A domain read on its own (`domain`), or the small domains read together (`domain: null`). */
export interface FeedStream {
  domain: string | null;
  /** Rows it had waiting when the feed began. */
  total: number;
  /** Rows asked of it so far. */
  planned: number;
  after: FeedCursor | null;
  done: boolean;
}

/** One read of a round: up to `take` rows of the stream, after its cursor. */
export interface FeedRead {
  stream: FeedStream;
  take: number;
}

/**
 * The order in which a feed reads a list: each domain with at least a group of rows waiting on its
 * own, the small ones together (in domain order), the streams interleaved in proportion to their
 * size. A group is due at the middle of its share of its stream, so the few big providers (whose
 * mail hosts take a handful of sessions at a time, the list's longest wait) are asked from the
 * start of the list to its end, beside the company domains, instead of one domain after another.
 */
export class FeedPlan {
  private readonly streams: FeedStream[];

  constructor(
    pending: Array<{ domain: string | null; rows: number }>,
    private readonly groupSize: number,
  ) {
    this.streams = pending
      .filter(({ rows }) => rows > 0)
      .map(({ domain, rows }) => ({ domain, total: rows, planned: 0, after: null, done: false }));
  }

  /** The domains read on their own (the small stream leaves them out). */
  get domains(): string[] {
    return this.streams.flatMap((stream) => (stream.domain === null ? [] : [stream.domain]));
  }

  /** The next `groups` groups' reads, a stream's picks in one read; none when every stream is done. */
  next(groups: number): FeedRead[] {
    const reads = new Map<FeedStream, FeedRead>();
    for (let pick = 0; pick < groups; pick++) {
      let due: FeedStream | null = null;
      for (const stream of this.streams) if (!stream.done && (!due || this.earlier(stream, due))) due = stream;
      if (!due) break;
      due.planned += this.groupSize;
      const read = reads.get(due);
      if (read) read.take += this.groupSize;
      else reads.set(due, { stream: due, take: this.groupSize });
    }
    return [...reads.values()];
  }

  /** What a read gave: the stream's cursor moves past its last row, and a short read ends the stream. */
  advance(read: FeedRead, rows: FeedCursor[]): void {
    const last = rows[rows.length - 1];
    if (last) read.stream.after = { domain: last.domain, row: last.row };
    if (rows.length < read.take) read.stream.done = true;
  }

  /** The stream whose next group's middle comes first in its share; the larger one on a tie. */
  private earlier(a: FeedStream, b: FeedStream): boolean {
    const half = this.groupSize / 2;
    const dueA = (a.planned + half) / a.total;
    const dueB = (b.planned + half) / b.total;
    return dueA !== dueB ? dueA < dueB : a.total > b.total;
  }
}

/**
 * How far a feed may mark each domain dispatched (ListStore.markDispatched): through the last row of
 * the domain's groups queued so far, none before them still outstanding. A feed queues several groups
 * side by side, so they finish out of order; a mark never passes a group read and not yet queued (one
 * still waiting, or whose queueing failed), and the feed that takes the list up again sends it.
 */
export class FeedCheckpoints {
  /** Per domain, its groups in row order, each queued or not. */
  private readonly groups = new Map<string, Array<{ rows: FeedCursor[]; queued: boolean }>>();

  /** A group read, after the domain's groups read before it (it may still grow until queued). */
  read(rows: FeedCursor[]): void {
    const domain = rows[0].domain;
    const groups = this.groups.get(domain);
    if (groups) groups.push({ rows, queued: false });
    else this.groups.set(domain, [{ rows, queued: false }]);
  }

  /** A group queued: the row its domain may now be marked through, or null when the mark does not move. */
  queued(rows: FeedCursor[]): number | null {
    const domain = rows[0].domain;
    const groups = this.groups.get(domain) ?? [];
    const group = groups.find((candidate) => candidate.rows === rows);
    if (!group) throw new Error(`a group of ${domain} queued that was never read`);
    group.queued = true;
    let through: number | null = null;
    while (groups[0]?.queued) {
      const { rows: done } = groups.shift()!;
      through = done[done.length - 1].row;
    }
    if (groups.length === 0) this.groups.delete(domain);
    return through;
  }
}
