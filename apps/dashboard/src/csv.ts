/** The header row of a CSV file, read in the browser (docs/api.md#the-list-object: UTF-8, BOM tolerated, comma or semicolon, quotes). */
export function headerOf(text: string): string[] {
  const body = text.replace(/^\uFEFF/, '');
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  let delimiter: string | null = null;
  for (let index = 0; index < body.length; index++) {
    const char = body[index];
    if (quoted) {
      if (char === '"' && body[index + 1] === '"') {
        field += '"';
        index++;
      } else if (char === '"') quoted = false;
      else field += char;
      continue;
    }
    if (char === '"') quoted = true;
    else if (char === '\n' || char === '\r') break;
    else if ((char === ',' || char === ';') && (delimiter === null || delimiter === char)) {
      delimiter = char;
      fields.push(field.trim());
      field = '';
    } else field += char;
  }
  fields.push(field.trim());
  return fields.filter((name, index) => name !== '' || index < fields.length - 1);
}

/** The column the service would pick by itself: the first named like email / e-mail / mail. */
export function likelyEmailColumn(header: string[]): string | null {
  return (
    header.find((name) => /^(e-?mail|mail)([ _-]?address)?$/i.test(name)) ??
    header.find((name) => /mail/i.test(name)) ??
    null
  );
}

/** Saves a Blob as a file through a temporary link (the key travels in a header, so links cannot be used). */
export function save(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Every record of a CSV (UTF-8, BOM tolerated, comma or semicolon as its header row uses, quoted fields). */
export function parseCsv(text: string): string[][] {
  const body = text.replace(/^\uFEFF/, '');
  const firstLine = body.slice(0, body.search(/\r|\n|$/));
  const delimiter = (firstLine.match(/;/g)?.length ?? 0) > (firstLine.match(/,/g)?.length ?? 0) ? ';' : ',';
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let index = 0; index < body.length; index++) {
    const char = body[index];
    if (quoted) {
      if (char === '"' && body[index + 1] === '"') {
        field += '"';
        index++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === delimiter) {
      record.push(field.trim());
      field = '';
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && body[index + 1] === '\n') index++;
      record.push(field.trim());
      if (record.some((value) => value !== '')) records.push(record);
      record = [];
      field = '';
    } else field += char;
  }
  record.push(field.trim());
  if (record.some((value) => value !== '')) records.push(record);
  return records;
}

/** A quick syntax check, as loose as the service's first one: something@domain.tld, no spaces. */
export const looksLikeEmail = (value: string) => /^[^\s@"]+@[^\s@]+\.[^\s@.]+$/.test(value.trim());

export interface CsvPlan {
  header: string[];
  /** The first row looks like data (it holds an address): the service needs a header row. */
  headerMissing: boolean;
  /** The column picked by its name, or by values that look like addresses; null: the user must choose. */
  column: string | null;
  rows: number;
}

/** What an upload would do: the header, the address column the service would pick, the number of data rows. */
export function planCsv(records: string[][]): CsvPlan {
  const header = records[0] ?? [];
  const data = records.slice(1);
  const headerMissing = header.some(looksLikeEmail);
  let column = likelyEmailColumn(header);
  if (!column) {
    const sample = data.slice(0, 50);
    const index = header.findIndex(
      (_, position) =>
        sample.length > 0 && sample.filter((row) => looksLikeEmail(row[position] ?? '')).length * 2 >= sample.length,
    );
    column = index >= 0 ? header[index] : null;
  }
  return { header, headerMissing, column, rows: data.length };
}

/**
 * Whether a value could pass the service's syntax check: looser than `looksLikeEmail` (the service
 * takes `a@io` and quoted local parts), so the estimate below stays an upper bound.
 */
const mayBeAddress = (value: string) => value.lastIndexOf('@') > 0 && !value.endsWith('@');

/** The most a list can cost: unique addresses (case-folded) that may pass the syntax check; duplicates and failures are free. */
export function chargeableRows(records: string[][], column: string): number {
  const index = (records[0] ?? []).indexOf(column);
  if (index < 0) return 0;
  const seen = new Set<string>();
  for (const row of records.slice(1)) {
    const email = (row[index] ?? '').trim();
    if (mayBeAddress(email)) seen.add(email.toLowerCase());
  }
  return seen.size;
}
