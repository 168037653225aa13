/** The request rate limiter (`RateLimiter`): per key, per sign-up address, per widget visitor. */
export const RATE_LIMITER = Symbol('RATE_LIMITER');
/** The widget's public tier counters (`DailyQuota`). */
export const DAILY_QUOTA = Symbol('DAILY_QUOTA');
