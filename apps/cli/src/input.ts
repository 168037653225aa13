import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pipeline } from 'node:stream/promises';
import { looksLikeCsv, readCsv, type CsvHead } from '@mailguard/lists';

/** One address to check, with the row it came from (written back in front of our columns in CSV output). */
export interface Entry {
  email: string;
  fields: string[];
}

export interface Input {
  /** The input's columns: a CSV's header, else `email`. */
  columns: readonly string[];
  delimiter: ',' | ';';
  total: number;
  entries: AsyncIterable<Entry>;
}

export type Source =
  { kind: 'arguments'; emails: string[] } | { kind: 'file'; path: string; emailColumn: string | null };

const PLAIN = { columns: ['email'], delimiter: ',' } as const;

async function* fromArray(emails: string[]): AsyncGenerator<Entry> {
  for (const email of emails) yield { email, fields: [email] };
}

/** One address per line (blank lines skipped), as a stream. */
async function* plainLines(path: string): AsyncGenerator<string> {
  let first = true;
  for await (const raw of createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity })) {
    const line = first ? raw.replace(/^\uFEFF/, '') : raw;
    first = false;
    if (line.trim() !== '') yield line;
  }
}

async function plainFile(path: string): Promise<Input> {
  let total = 0;
  for await (const _ of plainLines(path)) total++;
  async function* entries(): AsyncGenerator<Entry> {
    for await (const email of plainLines(path)) yield { email, fields: [email] };
  }
  return { ...PLAIN, total, entries: entries() };
}

/** A CSV read as the API reads an upload (`readCsv`): its header and row count are known before the first row. */
async function csvFile(path: string, emailColumn: string | null): Promise<Input> {
  let head: CsvHead | null = null;
  const records = readCsv(path, { requested: emailColumn, option: '--email-column' }, async (known) => {
    head = known;
  });
  const first = await records.next();
  const found = head as CsvHead | null;
  if (!found) throw new Error('the CSV reader gave no header');
  const known: CsvHead = found;
  async function* entries(): AsyncGenerator<Entry> {
    if (first.done) return;
    for (let record: IteratorResult<string[]> = first; !record.done; record = await records.next()) {
      yield { email: (record.value[known.emailColumn] ?? '').trim(), fields: record.value };
    }
  }
  return { columns: known.columns, delimiter: known.delimiter, total: known.rows, entries: entries() };
}

/**
 * The addresses of a run: its arguments, or a file (`-`: stdin, kept in a temporary file while the run
 * lasts, since a CSV is read twice, as the API reads uploads: checked first, then streamed).
 */
export async function openInput(
  source: Source,
  stdin: NodeJS.ReadableStream,
): Promise<{ input: Input; close(): Promise<void> }> {
  if (source.kind === 'arguments')
    return {
      input: { ...PLAIN, total: source.emails.length, entries: fromArray(source.emails) },
      close: async () => undefined,
    };
  let path = source.path;
  let close: () => Promise<void> = async () => undefined;
  if (path === '-') {
    const dir = await mkdtemp(join(tmpdir(), 'mailguard-'));
    close = () => rm(dir, { recursive: true, force: true });
    path = join(dir, 'stdin');
    await pipeline(stdin, createWriteStream(path));
  }
  try {
    const csv = source.emailColumn !== null || (await looksLikeCsv(path));
    return { input: csv ? await csvFile(path, source.emailColumn) : await plainFile(path), close };
  } catch (error) {
    await close();
    throw error;
  }
}
