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
