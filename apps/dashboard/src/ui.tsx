import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, num, type Scope } from './api';

const SCOPE_WORDS: Record<Scope, string> = {
  full: 'full (everything)',
  verify: 'verify (checks and the finder)',
  lists: 'lists (bulk lists)',
  'read-only': 'read-only (reading, no paid checks)',
};

export const scopeWords = (scope: Scope) => SCOPE_WORDS[scope];

/** A refusal in words, where it happened: 402, 429 (counting down), 403, network (with a retry). */
export function Problem({ error, scope, onRetry }: { error: unknown; scope?: Scope; onRetry?: () => void }) {
  const rate = error instanceof ApiError && error.kind === 'rate' ? (error.retryAfter ?? 60) : 0;
  // The count belongs to the error it counts for: a new refusal shows its own wait from the first render.
  const [count, setCount] = useState({ of: error, left: rate });
  const wait = count.of === error ? count.left : rate;
  useEffect(() => {
    setCount({ of: error, left: rate });
    if (!rate) return;
    const timer = setInterval(() => setCount(({ of, left }) => ({ of, left: left > 0 ? left - 1 : 0 })), 1000);
    return () => clearInterval(timer);
  }, [error, rate]);
  if (!error) return null;
  const api = error instanceof ApiError ? error : new ApiError('other', String(error), 0);
  let text: ComponentChildren;
  switch (api.kind) {
    case 'credits':
      text = 'Out of credits: this account has too few credits left for this. Nothing was charged.';
      break;
    case 'rate':
      text = wait > 0 ? `Too many requests with this key: try again in ${wait} seconds.` : 'You can try again now.';
      break;
    case 'scope':
      text = `This key's scope${scope ? `, ${scopeWords(scope)},` : ''} does not allow this. Sign in with a key that has the right scope.`;
      break;
    case 'auth':
      text = 'Not accepted: the credentials were refused.';
      break;
    case 'network':
      text = 'The service could not be reached: check your connection, then retry.';
      break;
    default:
      text = api.message;
  }
  return (
    <div class="problem" role="alert" data-kind={api.kind}>
      <p>{text}</p>
      {onRetry && (api.kind === 'network' || (api.kind === 'rate' && wait === 0) || api.kind === 'other') && (
        <button type="button" onClick={onRetry}>
          Retry
        </button>
      )}
    </div>
  );
}

/** The sentence a page shows when the signed-in key may look but not act. */
export function ReadOnly({ scope, needs }: { scope: Scope; needs: string }) {
  return (
    <p class="note" role="note">
      Read-only: this key's scope is {scopeWords(scope)}; {needs}
    </p>
  );
}

/** A secret shown once, with a copy button. */
export function Secret({ label, value, id }: { label: string; value: string; id: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard.writeText(value);
    setCopied(true);
  };
  return (
    <div class="secret">
      <label for={id}>{label}</label>
      <div class="row">
        <input id={id} readOnly value={value} class="mono" onFocus={(event) => event.currentTarget.select()} />
        <button type="button" onClick={copy}>
          {copied ? 'Copied' : 'Copy'}
          <span class="visually-hidden"> {label}</span>
        </button>
      </div>
    </div>
  );
}

export function Pager({
  page,
  limit,
  total,
  onPage,
  label,
}: {
  page: number;
  limit: number;
  total: number;
  onPage: (page: number) => void;
  label: string;
}) {
  const pages = Math.max(1, Math.ceil(total / limit));
  return (
    <nav class="pager" aria-label={label}>
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <span>
        Page {num(page)} of {num(pages)} ({num(total)} in all)
      </span>
      <button type="button" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}

export const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');

/** Runs `load` on mount and on `deps`, keeping its answer or its refusal. */
export function useLoad<T>(
  load: () => Promise<T>,
  deps: unknown[],
): { data: T | null; error: unknown; reload: () => void } {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setError(null);
    load().then(
      (answer) => live && setData(answer),
      (failure: unknown) => live && setError(failure),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  return { data, error, reload: () => setTick((value) => value + 1) };
}

/** A change the page sends, then `reload` on success; its refusal kept to show. */
export function useAction(reload: () => void): { error: unknown; act: (run: () => Promise<unknown>) => Promise<void> } {
  const [error, setError] = useState<unknown>(null);
  const act = async (run: () => Promise<unknown>) => {
    setError(null);
    try {
      await run();
      reload();
    } catch (failure) {
      setError(failure);
    }
  };
  return { error, act };
}
