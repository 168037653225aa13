/**
 * Every failure a client can be told about, with the HTTP status it maps to (docs/api.md#errors).
 * Libraries throw AppError with a code; only the gateway's error filter knows about HTTP.
 */
export const ERROR_STATUS = {
  bad_request: 400,
  unauthorized: 401,
  insufficient_credits: 402,
  forbidden: 403,
  /** A cookie-authenticated change without the matching `X-CSRF-Token`. */
  csrf: 403,
  /** The account's keys and sessions while an operator has it suspended. */
  account_suspended: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  /** Data erased after its retention period (list results past RETENTION_DAYS). */
  expired: 410,
  payload_too_large: 413,
  headers_too_large: 431,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class AppError extends Error {
  /** On rate limits: the seconds to wait before trying again (Retry-After). */
  readonly retryAfterSeconds?: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown; retryAfterSeconds?: number },
  ) {
    super(message, options);
    this.name = 'AppError';
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}
