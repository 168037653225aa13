/**
 * Every schema change, in order. The service never uses `synchronize`: each issue that adds
 * tables adds a migration class here.
 */
export const MIGRATIONS: Function[] = [];
