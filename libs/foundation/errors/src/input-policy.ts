import { AppError } from './app-error';

/**
 * The input policy of every edge (JSON fields, multipart fields, CSV fields and headers, ids in
 * paths): text we store or echo holds no C0/C1 control character, no line/paragraph separator and
 * no lone UTF-16 surrogate. Postgres refuses NUL, surrogates are no characters at all, and the rest
 * have no business in a name, a message, a URL or an id. Addresses to check are not refused here:
 * they get the `invalid_syntax` verdict (libs/checks/email).
 */
const UNSAFE_TEXT = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]|[\uD800-\uDFFF]/u;
/** The same for text that may span lines (a CSV field): tabs and line breaks are allowed there. */
const UNSAFE_MULTILINE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]|[\uD800-\uDFFF]/u;

/** The longest address a check takes (docs/api.md#verdict-rules): longer ones are refused (400), not judged. */
export const MAX_ADDRESS_INPUT = 1024;
/** Addresses in one batch check (docs/api.md#endpoints, #2). */
export const MAX_BATCH = 100;

/** Deepest JSON body accepted: our bodies are two levels deep; deeper ones are attacks on the parsers. */
export const MAX_JSON_DEPTH = 16;

export function isPlainText(value: string, { multiline = false } = {}): boolean {
  return !(multiline ? UNSAFE_MULTILINE : UNSAFE_TEXT).test(value);
}

/** Refuses (400) a field whose text breaks the policy, naming the field and never echoing the value. */
export function assertPlainText(field: string, value: string): void {
  if (!isPlainText(value))
    throw new AppError(
      'bad_request',
      `${field} must not contain control characters or broken (lone surrogate) characters`,
    );
}

/** How deep a parsed JSON value nests, counted without recursion (a hostile body cannot overflow the stack). */
export function jsonDepth(value: unknown): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (typeof node !== 'object' || node === null) continue;
    deepest = Math.max(deepest, depth);
    if (deepest > MAX_JSON_DEPTH) return deepest;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return deepest;
}
