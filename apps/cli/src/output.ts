import type { VerificationResult } from '@mailguard/engine';
import { csvLine, resultFields, resultHeader } from '@mailguard/lists';
import type { Entry } from './input';

export const FORMATS = ['text', 'json', 'jsonl', 'csv'] as const;
export type Format = (typeof FORMATS)[number];

/** Writes results as they come, in input order; `start` before the first, `end` after the last. */
export interface ResultWriter {
  start(): string;
  row(entry: Entry, result: VerificationResult, index: number): string;
  end(count: number): string;
}

/** `email  status  reason (subStatus)  score N  [confidence N]  [did you mean …?]`: for people. */
export function textLine(result: VerificationResult): string {
  const extra = [
    result.confidence !== null ? `confidence ${result.confidence}` : null,
    result.suggestion ? `did you mean ${result.suggestion}?` : null,
  ].filter(Boolean);
  const reason = result.subStatus ? `${result.reason} (${result.subStatus})` : result.reason;
  return [result.email, result.status, reason, `score ${result.score}`, ...extra].join('  ');
}

/** As `JSON.stringify(results, null, 2)` would print the whole array, one element at a time. */
function arrayElement(result: VerificationResult, index: number): string {
  const indented = JSON.stringify(result, null, 2).replace(/^/gm, '  ');
  return `${index === 0 ? '[\n' : ',\n'}${indented}`;
}

/**
 * json: one array of docs/api.md#the-result-object results (as `GET /email-validation/:email` returns each); jsonl: one per
 * line; csv: the input's columns, then ours as the list results download writes them (docs/api.md#endpoints, #7).
 */
export function resultWriter(format: Format, columns: readonly string[], delimiter: ',' | ';'): ResultWriter {
  switch (format) {
    case 'text':
      return { start: () => '', row: (_, result) => `${textLine(result)}\n`, end: () => '' };
    case 'json':
      return {
        start: () => '',
        row: (_, result, index) => arrayElement(result, index),
        end: (count) => (count === 0 ? '[]\n' : '\n]\n'),
      };
    case 'jsonl':
      return { start: () => '', row: (_, result) => `${JSON.stringify(result)}\n`, end: () => '' };
    case 'csv':
      return {
        start: () => csvLine([...columns, ...resultHeader(columns)], delimiter),
        row: (entry, result) =>
          csvLine([...columns.map((_, index) => entry.fields[index] ?? ''), ...resultFields(result)], delimiter),
        end: () => '',
      };
  }
}
