import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parse } from 'csv-parse';
import { AppError } from '@mailguard/errors';
import { readCsv, RecordBounds } from './csv';

let dir: string;
beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'mailguard-csv-'))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

async function read(path: string): Promise<string[][]> {
  const rows: string[][] = [];
  for await (const row of readCsv(path, { requested: null, option: 'emailColumn' }, async () => undefined))
    rows.push(row);
  return rows;
}

const openDescriptors = () => readdirSync('/proc/self/fd').length;

/** The descriptors open once those being closed are (fs closes on the thread pool: polled, bounded). */
async function descriptorsBackTo(count: number): Promise<number> {
  for (let tries = 0; tries < 100 && openDescriptors() > count; tries++)
    await new Promise((resolve) => setTimeout(resolve, 10));
  return openDescriptors();
}

/** What csv-parse makes of `text`, with the record bounds before it or without. */
async function records(text: string, bounded: boolean, chunk = 3): Promise<string[][]> {
  const out: string[][] = [];
  const chunks = Array.from({ length: Math.ceil(text.length / chunk) }, (_, i) =>
    Buffer.from(text.slice(i * chunk, (i + 1) * chunk)),
  );
  const options = { delimiter: ',', bom: true, relax_column_count: true, skip_empty_lines: true, relax_quotes: true };
  const source = Readable.from(chunks);
  const rows = parse(options);
  const collect = async (parsed: AsyncIterable<string[]>) => {
    for await (const row of parsed) out.push(row);
  };
  await (bounded ? pipeline(source, new RecordBounds(','), rows, collect) : pipeline(source, rows, collect));
  return out;
}

describe('RecordBounds', () => {
  it.each([
    ['LF with blank lines', 'email,name\n\n\na@x.test,A\n\nb@x.test,B\n'],
    ['CRLF with blank lines', '\r\n\r\nemail,name\r\n\r\na@x.test,A\r\n\r\n\r\nb@x.test,B\r\n'],
    ['CR only', 'email,name\r\r\ra@x.test,A\rb@x.test,B'],
    ['a BOM then a quoted header', '\uFEFF"email","name"\na@x.test,"A, the ""first"""\n'],
    ['quoted line breaks and commas', 'email,note\na@x.test,"one,\n\ntwo\r\nthree"\n'],
    ['quotes inside unquoted fields', 'email,note\na@x.test,4"5\'\nb@x.test,"x"y,z\n'],
    ['an empty quoted field then a quote', 'email,note\na@x.test,"""q"\nb@x.test,""\n'],
    ['a lone LF inside a CRLF record', 'email,note\r\na@x.test,one\ntwo\r\n'],
    ['a lone CR inside an LF record', 'email,note\na@x.test,one\rtwo\n'],
  ])('%s: csv-parse reads the same records through it', async (_, text) => {
    for (const chunk of [1, 2, 3, 64])
      expect(await records(text, true, chunk)).toEqual(await records(text, false, chunk));
  });

  it('cuts a line of commas at its 501st column, not after parsing it', async () => {
    const before = openDescriptors();
    const path = file('commas.csv', Buffer.concat([Buffer.from('email\n'), Buffer.alloc(45 * 1024 * 1024, ',')]));
    const heap = process.memoryUsage().heapUsed;
    const refusal = await read(path).catch((error: unknown) => error);
    // The line was never held whole (how fast that is is the upload bench's to tell).
    expect(process.memoryUsage().heapUsed - heap).toBeLessThan(100 * 1024 * 1024);
    expect(refusal).toBeInstanceOf(AppError);
    expect((refusal as AppError).message).toBe('row 1 has over 500 columns; a list has at most 500');
    // At most as many as before: what else this worker had open may close meanwhile, this file may not stay open.
    expect(await descriptorsBackTo(before)).toBeLessThanOrEqual(before);
  });

  it('counts columns across lone LFs of a CRLF file (one record to csv-parse)', async () => {
    const text = `email\r\n${`x@y.test${','.repeat(100)}\n`.repeat(10)}\r\n`;
    await expect(read(file('lf-in-crlf.csv', text))).rejects.toThrow('row 1 has over 500 columns');
  });

  it('cuts a record at 256 KB of raw bytes, quoted or not', async () => {
    await expect(read(file('long.csv', `email\n"${'a'.repeat(300 * 1024)}"\n`))).rejects.toThrow(
      'row 1 is larger than 256 KB',
    );
    await expect(read(file('long-lines.csv', `email\n"${'a\n'.repeat(150 * 1024)}"\n`))).rejects.toThrow(
      'row 1 is larger than 256 KB',
    );
  });

  it('skips a flood of blank lines without holding them', async () => {
    const flood = Buffer.alloc(45 * 1024 * 1024, '\n');
    const path = file(
      'newlines.csv',
      Buffer.concat([Buffer.from('email\na@x.test\n'), flood, Buffer.from('b@x.test\n')]),
    );
    const heap = process.memoryUsage().heapUsed;
    expect(await read(path)).toEqual([['a@x.test'], ['b@x.test']]);
    expect(process.memoryUsage().heapUsed - heap).toBeLessThan(100 * 1024 * 1024);
  });

  it('keeps a quoted field of 1,000 commas as one column', async () => {
    expect(await read(file('quoted.csv', `email,note\na@x.test,"${','.repeat(1000)}"\n`))).toEqual([
      ['a@x.test', ','.repeat(1000)],
    ]);
  });
});

describe('readCsv descriptors', () => {
  it('closes the file when a row is refused after parsing, or the reader stops early', async () => {
    const before = openDescriptors();
    await expect(read(file('nul.csv', `email\na@x.test\u0000\n`))).rejects.toThrow('row 1 holds a NUL');
    const rows = readCsv(
      file('many.csv', `email\n${'a@x.test\n'.repeat(200)}`),
      { requested: null, option: 'emailColumn' },
      async () => undefined,
    );
    await rows.next();
    await rows.return(undefined);
    // At most as many as before: what else this worker had open may close meanwhile, this file may not stay open.
    expect(await descriptorsBackTo(before)).toBeLessThanOrEqual(before);
  });
});
