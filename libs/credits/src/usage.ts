import type { DataSource } from 'typeorm';

export interface UsageRow {
  date: string;
  kind: string;
  checks: number;
  credits: number;
}

/** Checks and credits per UTC day and kind, from the stored verifications (each records what it finally cost). */
export async function usageBetween(dataSource: DataSource, accountId: string, from: string, to: string): Promise<UsageRow[]> {
  const rows: Array<{ date: string; kind: string; checks: string; credits: string }> = await dataSource.query(
    `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS date, kind, count(*) AS checks, coalesce(sum(credits), 0) AS credits
       FROM verifications
      WHERE account_id = $1 AND created_at >= ($2::date AT TIME ZONE 'UTC') AND created_at < (($3::date + 1) AT TIME ZONE 'UTC')
      GROUP BY 1, 2 ORDER BY 1, 2`,
    [accountId, from, to],
  );
  return rows.map((row) => ({ date: row.date, kind: row.kind, checks: Number(row.checks), credits: Number(row.credits) }));
}
