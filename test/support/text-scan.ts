import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** A query on the database under test, whichever client runs it. */
export type Query = <T>(sql: string, params?: unknown[]) => Promise<T[]>;

/**
 * Where any of `needles` occurs (case-insensitively) in any text or JSON column of any table of
 * the public schema, as `table.column: needle`: a table added later is searched without being named.
 */
export async function findText(query: Query, needles: string[]): Promise<string[]> {
  const columns = await query<{ table_name: string; column_name: string }>(
    `SELECT table_name, column_name FROM information_schema.columns
     WHERE table_schema = 'public' AND data_type IN ('text', 'character varying', 'json', 'jsonb')
     ORDER BY table_name, column_name`,
  );
  const found: string[] = [];
  for (const { table_name: table, column_name: column } of columns) {
    const hits = await query<{ needle: string }>(
      `SELECT needle FROM unnest($1::text[]) AS needle
       WHERE EXISTS (SELECT 1 FROM "${table}" WHERE strpos(lower("${column}"::text), lower(needle)) > 0)`,
      [needles],
    );
    found.push(...hits.map(({ needle }) => `${table}.${column}: ${needle}`));
  }
  return found;
}

/** The files under `dir` whose bytes hold any of `needles` (as UTF-8), as paths relative to `dir`. */
export function filesHolding(dir: string, needles: string[]): string[] {
  const patterns = needles.map((needle) => Buffer.from(needle));
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((path) => {
      const bytes = readFileSync(path);
      return patterns.some((pattern) => bytes.includes(pattern));
    })
    .map((path) => relative(dir, path));
}
