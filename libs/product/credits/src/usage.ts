import type { DataSource } from 'typeorm';
import { VerificationEntity } from '@mailguard/db';

export interface UsageRow {
  date: string;
  kind: string;
  checks: number;
  credits: number;
}

/** Checks and credits per UTC day and kind, from the stored verifications (each records what it finally cost). */
export async function usageBetween(
  dataSource: DataSource,
  accountId: string,
  from: string,
  to: string,
): Promise<UsageRow[]> {
  const rows = await dataSource
    .getRepository(VerificationEntity)
    .createQueryBuilder('v')
    .select("to_char(v.createdAt AT TIME ZONE 'UTC', 'YYYY-MM-DD')", 'date')
    .addSelect('v.kind', 'kind')
    .addSelect('count(*)', 'checks')
    .addSelect('coalesce(sum(v.credits), 0)', 'credits')
    .where('v.accountId = :accountId', { accountId })
    // Inclusive UTC dates: from the first day's midnight to the midnight after the last.
    .andWhere("v.createdAt >= (CAST(:from AS date) AT TIME ZONE 'UTC')", { from })
    .andWhere("v.createdAt < ((CAST(:to AS date) + 1) AT TIME ZONE 'UTC')", { to })
    .groupBy('date')
    .addGroupBy('v.kind')
    .orderBy('date')
    .addOrderBy('v.kind')
    .getRawMany<{ date: string; kind: string; checks: string; credits: string }>();
  return rows.map((row) => ({
    date: row.date,
    kind: row.kind,
    checks: Number(row.checks),
    credits: Number(row.credits),
  }));
}
