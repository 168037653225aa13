import type { EnvReader } from './env-reader';

/**
 * What list uploads (POST /v1/lists and MCP create_list) may stage on disk at once, and how long
 * an upload's body may stall: past an account's share 429, past the process's 503, so that no key
 * fills the disk or runs the process out of descriptors.
 */
export interface UploadConfig {
  maxConcurrentPerAccount: number;
  maxBytesPerAccount: number;
  maxConcurrent: number;
  maxStagedBytes: number;
  /** An upload whose body sends nothing for this long is answered 408 and its connection closed. */
  idleTimeoutMs: number;
}

const MB = 1024 * 1024;
const MAX_BYTES = 1024 * 1024 * MB;

/** Defaults: an account stages two full (50 MB) uploads, the process 16 uploads and 400 MB. */
export function readUploadConfig(read: EnvReader): UploadConfig {
  const config: UploadConfig = {
    maxConcurrentPerAccount: read.int('UPLOAD_MAX_CONCURRENT_PER_ACCOUNT', 2, 1, 10_000),
    maxBytesPerAccount: read.int('UPLOAD_MAX_BYTES_PER_ACCOUNT', 100 * MB, 1, MAX_BYTES),
    maxConcurrent: read.int('UPLOAD_MAX_CONCURRENT', 16, 1, 10_000),
    maxStagedBytes: read.int('UPLOAD_MAX_STAGED_BYTES', 400 * MB, 1, MAX_BYTES),
    idleTimeoutMs: read.int('UPLOAD_IDLE_TIMEOUT_MS', 30_000, 100, 600_000),
  };
  // An account's share larger than the whole would never be the limit that answers.
  if (config.maxConcurrentPerAccount > config.maxConcurrent)
    read.problems.push(
      `UPLOAD_MAX_CONCURRENT_PER_ACCOUNT (${config.maxConcurrentPerAccount}) must not be over UPLOAD_MAX_CONCURRENT (${config.maxConcurrent})`,
    );
  if (config.maxBytesPerAccount > config.maxStagedBytes)
    read.problems.push(
      `UPLOAD_MAX_BYTES_PER_ACCOUNT (${config.maxBytesPerAccount}) must not be over UPLOAD_MAX_STAGED_BYTES (${config.maxStagedBytes})`,
    );
  return config;
}
