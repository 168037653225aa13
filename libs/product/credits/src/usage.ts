import type { DataSource } from 'typeorm';
import type { UsageKind } from '@mailguard/db';

export interface UsageRow {
  date: string;
  kind: UsageKind;
  checks: number;
  credits: number;
}

/**
 * The prefix of the ledger `ref` of each kind of usage: a charge and its refund carry the id of
 * the request (`chk_…`, `bat_…`, `wgt_…`, `fnd_…`), a list's charges its id (`lst_…`, then the
 * settlement). Whoever charges names its ref with `newId(USAGE_REF_PREFIX[kind])`.
 */
export const USAGE_REF_PREFIX = {
  single: 'chk',
  batch: 'bat',
  list: 'lst',
  finder: 'fnd',
  widget: 'wgt',
} as const satisfies Record<UsageKind, string>;

const KIND_OF_REF = `CASE split_part(ref, '_', 1) ${Object.entries(USAGE_REF_PREFIX)
  .map(([kind, prefix]) => `WHEN '${prefix}' THEN '${kind}'`)
  .join(' ')} END`;

/** Inclusive UTC dates: from the first day's midnight to the midnight after the last. */
const IN_RANGE = (column: string) =>
  `${column} >= (CAST($2 AS date) AT TIME ZONE 'UTC') AND ${column} < ((CAST($3 AS date) + 1) AT TIME ZONE 'UTC')`;

/**
 * Checks and credits per UTC day and kind (docs/api.md#usage). The credits are the ledger's: a day's
 * `charge` rows less its `refund` rows, each by the kind its ref names, so that the credits of any
 * period add up to its charges minus refunds however the two fall (a refund after midnight counts
 * on its own day). The checks are the stored verifications of the day, and the list rows that
 * settled on it (list_usage).
 */
export async function usageBetween(
  dataSource: DataSource,
  accountId: string,
  from: string,
  to: string,
): Promise<UsageRow[]> {
  const rows: Array<{ date: string; kind: UsageKind; checks: string; credits: string }> = await dataSource.query(
    `WITH credits AS (
       SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS date, ${KIND_OF_REF} AS kind, -sum(delta) AS credits
       FROM credit_transactions
       WHERE account_id = $1 AND kind IN ('charge', 'refund') AND ${IN_RANGE('created_at')}
       GROUP BY 1, 2),
     checks AS (
       SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS date, kind, count(*) AS checks
       FROM verifications WHERE account_id = $1 AND ${IN_RANGE('created_at')}
       GROUP BY 1, 2
       UNION ALL
       SELECT to_char(day, 'YYYY-MM-DD'), 'list', sum(checks)
       FROM list_usage WHERE account_id = $1 AND day BETWEEN CAST($2 AS date) AND CAST($3 AS date)
       GROUP BY 1)
     SELECT date, kind, coalesce(sum(checks), 0) AS checks, coalesce(sum(credits), 0) AS credits
     FROM (SELECT date, kind, checks, 0 AS credits FROM checks
           UNION ALL SELECT date, kind, 0, credits FROM credits WHERE kind IS NOT NULL) u
     GROUP BY date, kind
     -- A day and kind with neither (a charge refunded whole, such as a finder that found nobody) is no row.
     HAVING coalesce(sum(checks), 0) > 0 OR coalesce(sum(credits), 0) <> 0
     ORDER BY date, kind`,
    [accountId, from, to],
  );
  return rows.map((row) => ({
    date: row.date,
    kind: row.kind,
    checks: Number(row.checks),
    credits: Number(row.credits),
  }));
}
