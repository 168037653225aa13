import type { VerificationResult } from '@mailguard/engine';
import { RESULT_COLUMNS, resultFields, resultHeader } from './csv';

/** RESULT_COLUMNS is the one list of our download columns: the header and every row follow it. */
const result = {
  status: 'risky',
  reason: 'catch_all',
  confidence: 64,
  reachable: 'risky',
  isFree: false,
  isRole: true,
  isDisposable: false,
  smtp: { catchAll: true },
  suggestion: null,
  score: 55,
  subStatus: null,
} as unknown as VerificationResult;

it('writes the declared columns as the header, renaming only those the customer already has', () => {
  expect(resultHeader(['email'])).toEqual([...RESULT_COLUMNS]);
  expect(resultHeader(['E-mail', ' Status '])).toEqual(
    RESULT_COLUMNS.map((column) => (column === 'status' ? 'mailguard_status' : column)),
  );
});

it('writes each value under its column, and every column empty for a row without a result', () => {
  const row = Object.fromEntries(RESULT_COLUMNS.map((column, index) => [column, resultFields(result)[index]]));
  expect(row).toEqual({
    status: 'risky',
    reason: 'catch_all',
    confidence: '64',
    reachable: 'risky',
    is_free: 'false',
    is_role: 'true',
    is_disposable: 'false',
    is_catch_all: 'true',
    suggestion: '',
    score: '55',
    sub_status: '',
  });
  expect(resultFields(null)).toEqual(RESULT_COLUMNS.map(() => ''));
});
