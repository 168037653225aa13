import type { AppConfig } from '@mailguard/config';
import { createEngine, type ProbeRequest, type VerificationResult } from '@mailguard/engine';
import { AppError, ERROR_STATUS, MAX_BATCH, type ErrorCode } from '@mailguard/errors';
import {
  domainInsight,
  findAddress,
  parseDomainParam,
  parseFinderQuery,
  type DomainInsight,
  type FinderAnswer,
  type FinderQuery,
} from '@mailguard/finder';
import { learnDomain } from '@mailguard/scoring';

/** What the commands need, from the engine in this process or from a running service: the same answers. */
export interface Backend {
  verify(email: string): Promise<VerificationResult>;
  find(query: FinderQuery): Promise<FinderAnswer>;
  domain(name: string): Promise<DomainInsight>;
  /** The run is over: SMTP sessions kept open for a next probe say goodbye. */
  close(): void;
}

/** The service's code path in this process (framework-free engine and finder): unmetered, nothing learned. */
export function localBackend(config: AppConfig, warn: (message: string) => void): Backend {
  const engine = createEngine(config);
  engine.gate.observe({
    expired: (host) => warn(`an MX slot lease for ${host} expired (a session never gave its slot back)`),
  });
  const nothingLearned = learnDomain([]);
  // No queue in this process: probes run here, greylisting waited for as `verify` does.
  const finder = { engine, probe: (request: ProbeRequest) => engine.probeHere(request) };
  return {
    verify: (email) => engine.verify(email),
    find: (query) => {
      const { name, domain } = parseFinderQuery(query);
      return findAddress(finder, name, domain, nothingLearned);
    },
    domain: (name) => domainInsight(finder, parseDomainParam(name), nothingLearned),
    close: () => engine.closeSessions(),
  };
}

/** Tries of one request refused with 429 or 503 before the run gives up. */
const MAX_TRIES = 20;
/** When a 503 names no Retry-After. */
const UNAVAILABLE_WAIT_SECONDS = 2;

interface Waiting {
  email: string;
  resolve(result: VerificationResult): void;
  reject(error: unknown): void;
}

/**
 * A running service over its REST API (docs/api.md#endpoints: #2 batch, #9 finder, #10 domain) with the key in
 * `X-API-Key`: metered like any client. Addresses are gathered into batch calls of up to 100; a 429 or
 * 503 is retried after its `Retry-After`; any other refusal is an AppError with the service's message.
 */
export function remoteBackend(url: string, apiKey: string, notice: (message: string) => void): Backend {
  // The host or the REST base (`…/v1`), as MAILGUARD_API_URL is for `mailguard mcp`.
  const base = `${url.replace(/\/+$/, '').replace(/\/v1$/, '')}/v1`;
  const waiting: Waiting[] = [];
  let scheduled = false;

  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      let response: Response;
      try {
        response = await fetch(`${base}${path}`, {
          method,
          headers: { 'X-API-Key': apiKey, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      } catch (error) {
        // fetch says only "fetch failed"; its cause names the socket's error (ECONNREFUSED, ENOTFOUND…).
        const reason =
          error instanceof Error ? (error.cause instanceof Error ? error.cause : error).message : String(error);
        throw new AppError('unavailable', `cannot reach ${base}: ${reason}`);
      }
      const text = await response.text();
      if (response.ok) return JSON.parse(text) as T;
      const retryAfter = Number(response.headers.get('retry-after'));
      if ((response.status === 429 || response.status === 503) && attempt < MAX_TRIES) {
        const seconds = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : UNAVAILABLE_WAIT_SECONDS;
        notice(`${response.status} from the service: waiting ${seconds} s as its Retry-After asks`);
        await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
        continue;
      }
      throw refusal(response.status, text);
    }
  }

  function flush(): void {
    const batch = waiting.splice(0, MAX_BATCH);
    if (batch.length === 0) return;
    call<{ results: VerificationResult[] }>('POST', '/email-validation/batch', {
      emails: batch.map((item) => item.email),
    }).then(
      ({ results }) => batch.forEach((item, index) => item.resolve(results[index])),
      (error: unknown) => batch.forEach((item) => item.reject(error)),
    );
  }

  return {
    verify: (email) =>
      new Promise((resolve, reject) => {
        waiting.push({ email, resolve, reject });
        if (waiting.length >= MAX_BATCH) flush();
        else if (!scheduled) {
          // What arrives in the same turn goes in one call.
          scheduled = true;
          setImmediate(() => {
            scheduled = false;
            while (waiting.length > 0) flush();
          });
        }
      }),
    find: (query) => {
      const params = new URLSearchParams(
        Object.entries(query).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
      );
      return call<FinderAnswer>('GET', `/email-finder?${params}`);
    },
    domain: (name) => call<DomainInsight>('GET', `/email-finder/domain/${encodeURIComponent(name)}`),
    // The service's sessions are its own.
    close: () => undefined,
  };
}

/** The service's `{ error, code }` as an AppError (its code when it is one we know, else the status's). */
export function refusal(status: number, text: string): AppError {
  let body: { error?: unknown; code?: unknown } = {};
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    // Not the API's JSON (a proxy's page): the status speaks.
  }
  const byStatus =
    (Object.entries(ERROR_STATUS) as Array<[ErrorCode, number]>).find(([, code]) => code === status)?.[0] ?? 'internal';
  const code = typeof body.code === 'string' && body.code in ERROR_STATUS ? (body.code as ErrorCode) : byStatus;
  const message = typeof body.error === 'string' ? body.error : `HTTP ${status}`;
  return new AppError(code, `the service answered ${status}: ${message}`);
}
