import { AppError } from '@mailguard/errors';

export const MAX_PAGE_SIZE = 100;

/** `?page` from 1, `?limit` from 1; a limit above 100 is served as 100 (docs/api.md#credits). */
export function parsePage(
  page: string | undefined,
  limit: string | undefined,
  defaultLimit = 20,
): { page: number; limit: number } {
  const read = (name: string, value: string | undefined, fallback: number) => {
    if (value === undefined) return fallback;
    if (!/^\d{1,9}$/.test(value) || Number(value) < 1)
      throw new AppError('bad_request', `${name} must be a whole number from 1`);
    return Number(value);
  };
  return { page: read('page', page, 1), limit: Math.min(MAX_PAGE_SIZE, read('limit', limit, defaultLimit)) };
}
