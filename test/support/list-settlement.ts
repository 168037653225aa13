/** What a SQL client answers, whichever the test holds (a pg Client wrapper, a TestDatabase). */
type Query = <T>(sql: string, params: unknown[]) => Promise<T[]>;

/**
 * A list's `total` rows are each settled once with a result and paid once out of the list's hold (a release
 * and a charge per settlement), nothing left to release: what crashes and drains must leave behind.
 */
export async function expectSettledAndPaidOnce(
  query: Query,
  accountId: string,
  listId: string,
  total: number,
): Promise<void> {
  const [rows] = await query<{ settled: string; results: string }>(
    'SELECT count(*) FILTER (WHERE settled) AS settled, count(result) AS results FROM list_rows WHERE list_id = $1',
    [listId],
  );
  expect(rows).toEqual({ settled: String(total), results: String(total) });
  const ledger = await query<{ kind: string; delta: string }>(
    `SELECT kind, sum(delta) AS delta FROM credit_transactions
     WHERE account_id = $1 AND split_part(ref, '.', 1) = $2 GROUP BY kind ORDER BY kind`,
    [accountId, listId],
  );
  expect(ledger).toEqual([
    { kind: 'charge', delta: String(-total) },
    { kind: 'hold', delta: String(-total) },
    { kind: 'release', delta: String(total) },
  ]);
}
