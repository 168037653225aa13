import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { pipeline, Transform, type TransformCallback } from 'node:stream';
import { parse } from 'csv-parse';
import { parseAddress } from '@mailguard/email';
import type { VerificationResult } from '@mailguard/engine';
import { AppError, isPlainText } from '@mailguard/errors';

const MAX_ROWS = 1_000_000;
/** Bounds a row must keep, checked while streaming: no upload makes the gateway parse a 40 MB row. */
const MAX_COLUMNS = 500;
const MAX_RECORD_BYTES = 256 * 1024;
const QUOTE = 0x22;
const CR = 0x0d;
const LF = 0x0a;
/** Rows read before choosing the email column by its values, when no header names it. */
const SAMPLE_ROWS = 50;
const EMAIL_HEADER = /^(e-?mail|mail)(\s*[-_ ]?\s*address)?$/i;

export interface CsvHead {
  columns: string[];
  delimiter: ',' | ';';
  emailColumn: number;
  /** Data rows in the file (counted before any is yielded). */
  rows: number;
}

/**
 * Our columns after the customer's, in this order (docs/api.md#endpoints, #7), declared once: the
 * list download, the CLI's CSV and the API reference all take them from here.
 */
export const RESULT_COLUMNS = [
  'status',
  'reason',
  'confidence',
  'reachable',
  'is_free',
  'is_role',
  'is_disposable',
  'is_catch_all',
  'suggestion',
  'score',
  'sub_status',
] as const;
export type ResultColumn = (typeof RESULT_COLUMNS)[number];

/** Our column names, each written `mailguard_<name>` when the customer's header already has it: no column lost or ambiguous. */
export function resultHeader(columns: readonly string[]): string[] {
  const taken = new Set(columns.map((column) => column.trim().toLowerCase()));
  return RESULT_COLUMNS.map((name) => (taken.has(name) ? `mailguard_${name}` : name));
}

/** Our columns' values for one result (empty when the row has none yet), by name so that none can slip out of order. */
export function resultFields(result: VerificationResult | null): string[] {
  if (!result) return RESULT_COLUMNS.map(() => '');
  const fields: Record<ResultColumn, string> = {
    status: result.status,
    reason: result.reason,
    confidence: result.confidence === null ? '' : String(result.confidence),
    reachable: result.reachable,
    is_free: String(result.isFree),
    is_role: String(result.isRole),
    is_disposable: String(result.isDisposable),
    is_catch_all: String(result.smtp.catchAll),
    suggestion: result.suggestion ?? '',
    score: String(result.score),
    sub_status: result.subStatus ?? '',
  };
  return RESULT_COLUMNS.map((column) => fields[column]);
}

/** A CSV field, quoted when it holds the delimiter, a quote or a line break (RFC 4180). */
function csvField(value: string, delimiter: string): string {
  return value.includes(delimiter) || /["\r\n]/.test(value) || value !== value.trim()
    ? `"${value.replace(/"/g, '""')}"`
    : value;
}

/** One CSV record with its CRLF, as the list results download writes them. */
export function csvLine(values: string[], delimiter: string): string {
  return `${values.map((value) => csvField(value, delimiter)).join(delimiter)}\r\n`;
}

/** Comma or semicolon: whichever the header line holds more of outside quotes. */
function delimiterOf(firstLine: string): ',' | ';' {
  let commas = 0;
  let semicolons = 0;
  let quoted = false;
  for (const char of firstLine) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && char === ',') commas++;
    else if (!quoted && char === ';') semicolons++;
  }
  return semicolons > commas ? ';' : ',';
}

/** Whether a header line is one a CSV has: a delimiter outside quotes, or a single column named like email. */
function isCsvHeader(line: string): boolean {
  let quoted = false;
  for (const char of line) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && (char === ',' || char === ';')) return true;
  }
  return EMAIL_HEADER.test(line.trim());
}

async function firstLine(path: string): Promise<string> {
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(64 * 1024);
    const { bytesRead } = await file.read(buffer, 0, buffer.length, 0);
    const text = buffer
      .subarray(0, bytesRead)
      .toString('utf8')
      .replace(/^\uFEFF/, '');
    return text.split(/\r?\n/, 1)[0] ?? '';
  } finally {
    await file.close();
  }
}

/** The email column the caller asked for, and what its caller calls that choice (`emailColumn`, `--email-column`). */
export interface ColumnChoice {
  requested: string | null;
  option: string;
}

function chooseColumn(columns: string[], sample: string[][], { requested, option }: ColumnChoice): number {
  if (requested !== null) {
    const wanted = requested.trim().toLowerCase();
    const index = columns.findIndex((column) => column.trim().toLowerCase() === wanted);
    if (index < 0)
      throw new AppError(
        'bad_request',
        `${option} "${requested}" is not a column of the file; its columns are: ${columns.join(', ')}`,
      );
    return index;
  }
  const named = columns.findIndex((column) => EMAIL_HEADER.test(column.trim()));
  if (named >= 0) return named;
  const looksLikeAddresses = (index: number) => {
    const values = sample.map((row) => (row[index] ?? '').trim()).filter((value) => value !== '');
    return values.length > 0 && values.filter((value) => parseAddress(value).valid).length * 2 >= values.length;
  };
  const byValue = columns.findIndex((_, index) => looksLikeAddresses(index));
  if (byValue >= 0) return byValue;
  throw new AppError('bad_request', `No email column: name one with ${option}, or call a column "email"`);
}

/**
 * Whether a file is a CSV with a header (as the API reads uploads) rather than one address per line: no
 * address holds a comma or semicolon outside quotes, and none is named "email".
 */
export async function looksLikeCsv(path: string): Promise<boolean> {
  return isCsvHeader(await firstLine(path));
}

/** A row within the bounds, and text a list can store (no NUL or other control character but tabs and line breaks). */
function checkRecord(record: string[], row: number): void {
  const where = rowName(row);
  if (record.length > MAX_COLUMNS)
    throw new AppError('bad_request', `${where} has ${record.length} columns; a list has at most ${MAX_COLUMNS}`);
  if (!record.every((field) => isPlainText(field, { multiline: true })))
    throw new AppError('bad_request', `${where} holds a NUL or other control character`);
}

function rowName(row: number): string {
  return row === 0 ? 'the header row' : `row ${row}`;
}

/**
 * Holds each record to MAX_COLUMNS and MAX_RECORD_BYTES (raw bytes) as its bytes pass, before csv-parse
 * builds it: a line of 47 million commas is refused at its 501st column, not held as 47 million fields.
 * Blank lines are dropped here (csv-parse skips them too), so a flood of them costs a byte scan and
 * nothing held. Quotes and line ends are read as csv-parse reads them (relax_quotes, record delimiter
 * discovered from the first unquoted CR, LF or CRLF), so that no record passes longer than counted.
 */
export class RecordBounds extends Transform {
  private readonly delimiter: number;
  private lineEnd: 'unknown' | 'lf' | 'crlf' | 'cr' = 'unknown';
  private started = false;
  /** The first line end was a CR: the next byte says CR or CRLF. */
  private crPending = false;
  /** That CR was a blank line's, dropped: so is its LF. */
  private crDropped = false;
  /** The byte before was an unquoted CR (in CRLF files, only CR LF ends a record). */
  private afterCr = false;
  private quoted = false;
  /** A quote inside a quoted field: the next byte says whether it is an escaped quote or the field's end. */
  private quotePending = false;
  private fieldEmpty = true;
  private columns = 1;
  private bytes = 0;
  private row = 0;

  constructor(delimiter: string) {
    super();
    this.delimiter = delimiter.charCodeAt(0);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    const kept: Buffer[] = [];
    let from = 0;
    const drop = (at: number) => {
      if (at > from) kept.push(chunk.subarray(from, at));
      from = at + 1;
    };
    let at = 0;
    // csv-parse strips a BOM before it reads quotes: it is no part of the first field.
    if (!this.started && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) at = 3;
    this.started = true;
    for (; at < chunk.length; at++) {
      const byte = chunk[at];
      if (this.crPending) {
        this.crPending = false;
        this.lineEnd = byte === LF ? 'crlf' : 'cr';
        if (byte === LF) {
          if (this.crDropped) drop(at);
          continue;
        }
      }
      if (this.quotePending) {
        this.quotePending = false;
        if (byte === QUOTE) {
          this.fieldEmpty = false;
          if (!this.grow(done, 1)) return;
          continue;
        }
        this.quoted = false;
      } else if (this.quoted) {
        if (byte === QUOTE) {
          this.quotePending = true;
          if (!this.grow(done, 1)) return;
          continue;
        }
        // Up to the next quote, all is the field's (line breaks too).
        const quote = chunk.indexOf(QUOTE, at);
        const end = quote < 0 ? chunk.length : quote;
        this.fieldEmpty = false;
        if (!this.grow(done, end - at)) return;
        at = end - 1;
        continue;
      }
      if (this.bytes === 0 && byte === LF && this.lineEnd === 'lf') {
        // A run of blank lines, dropped at once.
        let end = at;
        while (end < chunk.length && chunk[end] === LF) end++;
        if (at > from) kept.push(chunk.subarray(from, at));
        from = end;
        at = end - 1;
        continue;
      }
      const afterCr = this.afterCr;
      this.afterCr = byte === CR;
      if (this.endsRecord(byte, afterCr)) {
        if (this.lineEnd === 'unknown') {
          if (byte === CR) this.crPending = true;
          else this.lineEnd = 'lf';
        }
        this.crDropped = this.bytes === 0;
        if (this.bytes === 0) drop(at);
        else this.newRecord();
        continue;
      }
      // A CRLF file's blank line: its CR is dropped here and its LF ends nothing.
      if (byte === CR && this.lineEnd === 'crlf' && this.bytes === 0) {
        drop(at);
        continue;
      }
      if (byte === QUOTE && this.fieldEmpty) {
        this.quoted = true;
        if (!this.grow(done, 1)) return;
      } else if (byte === this.delimiter) {
        this.fieldEmpty = true;
        if (++this.columns > MAX_COLUMNS) {
          done(
            new AppError(
              'bad_request',
              `${rowName(this.row)} has over ${MAX_COLUMNS} columns; a list has at most ${MAX_COLUMNS}`,
            ),
          );
          return;
        }
        if (!this.grow(done, 1)) return;
      } else if (byte === QUOTE || byte === CR || byte === LF) {
        this.fieldEmpty = false;
        if (!this.grow(done, 1)) return;
      } else {
        // A run of plain bytes, counted at once.
        let end = at + 1;
        for (let next = chunk[end]; end < chunk.length; next = chunk[++end])
          if (next === QUOTE || next === this.delimiter || next === CR || next === LF) break;
        this.fieldEmpty = false;
        if (!this.grow(done, end - at)) return;
        at = end - 1;
      }
    }
    if (from < chunk.length) kept.push(chunk.subarray(from));
    done(null, kept.length === 1 ? kept[0] : Buffer.concat(kept));
  }

  private endsRecord(byte: number, afterCr: boolean): boolean {
    switch (this.lineEnd) {
      case 'unknown':
        return byte === CR || byte === LF;
      case 'lf':
        return byte === LF;
      case 'cr':
        return byte === CR;
      case 'crlf':
        return byte === LF && afterCr;
    }
  }

  private newRecord(): void {
    this.row++;
    this.bytes = 0;
    this.columns = 1;
    this.fieldEmpty = true;
  }

  /** Counts bytes of the record; false (the error passed on) past MAX_RECORD_BYTES. */
  private grow(done: TransformCallback, bytes: number): boolean {
    this.bytes += bytes;
    if (this.bytes <= MAX_RECORD_BYTES) return true;
    done(new AppError('bad_request', `${rowName(this.row)} is larger than ${MAX_RECORD_BYTES / 1024} KB`));
    return false;
  }
}

/**
 * Reads an uploaded CSV from disk as a stream of records (never the whole file in memory): UTF-8
 * with or without BOM, comma or semicolon, quoted fields, CRLF or LF; a header row is required.
 * Calls `onHead` once the columns and the email column are known, then yields data rows in order.
 */
export async function* readCsv(
  path: string,
  column: ColumnChoice,
  onHead: (head: CsvHead) => Promise<void>,
): AsyncGenerator<string[]> {
  const delimiter = delimiterOf(await firstLine(path));
  // One pipeline, so that a pass left early (a refused row, a consumer that stops) closes the file too.
  const records = () =>
    pipeline(
      createReadStream(path),
      new RecordBounds(delimiter),
      parse({
        delimiter,
        bom: true,
        relax_column_count: true,
        skip_empty_lines: true,
        relax_quotes: true,
        max_record_size: MAX_RECORD_BYTES,
      }),
      // Its error reaches the loop reading the records.
      () => undefined,
    );
  // A first pass counts the rows and checks each one, so that a file over a limit is refused before anything is stored.
  let rows = -1;
  try {
    for await (const record of records() as AsyncIterable<string[]>) {
      if (++rows > MAX_ROWS) break;
      checkRecord(record, rows);
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError('bad_request', `The file is not a readable CSV: ${(error as Error).message}`);
  }
  if (rows > MAX_ROWS)
    throw new AppError('payload_too_large', `Too many rows: a list holds at most ${MAX_ROWS.toLocaleString('en')}`);
  const parser = records();
  let columns: string[] | null = null;
  const sample: string[][] = [];
  let head: CsvHead | null = null;
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      if (!columns) {
        columns = record.map((column) => column.trim());
        continue;
      }
      if (!head) {
        sample.push(record);
        if (sample.length < SAMPLE_ROWS) continue;
        head = { columns, delimiter, emailColumn: chooseColumn(columns, sample, column), rows };
        await onHead(head);
        yield* sample;
        continue;
      }
      yield record;
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError('bad_request', `The file is not a readable CSV: ${(error as Error).message}`);
  }
  if (!columns) throw new AppError('bad_request', 'The file is empty: a header row and at least one row are needed');
  if (!head) {
    head = { columns, delimiter, emailColumn: chooseColumn(columns, sample, column), rows };
    await onHead(head);
    yield* sample;
  }
}
