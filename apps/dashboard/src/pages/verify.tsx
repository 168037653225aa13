import { useState } from 'preact/hooks';
import { call, num, type VerificationResult } from '../api';
import type { Session } from '../main';
import { ResultCard } from '../result';
import { Problem, ReadOnly } from '../ui';

const MAX_BATCH = 100;

export function Verify({ session }: { session: Session }) {
  const allowed = session.scope === 'full' || session.scope === 'verify';
  const [single, setSingle] = useState('');
  const [batch, setBatch] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [results, setResults] = useState<VerificationResult[]>([]);
  const run = async (work: () => Promise<VerificationResult[]>) => {
    setBusy(true);
    setError(null);
    try {
      setResults(await work());
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  const emails = batch.split(/[\s,;]+/).filter(Boolean);
  const verifyOne = (event: Event) => {
    event.preventDefault();
    void run(async () => [
      await call<VerificationResult>(session.key, 'GET', `/email-validation/${encodeURIComponent(single.trim())}`),
    ]);
  };
  const verifyMany = (event: Event) => {
    event.preventDefault();
    void run(
      async () =>
        (
          await call<{ results: VerificationResult[] }>(session.key, 'POST', '/email-validation/batch', {
            body: { emails },
          })
        ).results,
    );
  };
  return (
    <>
      <h1>Verify addresses</h1>
      {!allowed && <ReadOnly scope={session.scope} needs="checks are paid and need a full or verify key." />}
      <p>Each check costs one credit; answers the mail server could not give cost nothing.</p>
      <form onSubmit={verifyOne} class="inline">
        <label for="verify-email">Email address</label>
        <input
          id="verify-email"
          type="email"
          required
          disabled={!allowed}
          value={single}
          onInput={(event) => setSingle(event.currentTarget.value)}
        />
        <button type="submit" disabled={!allowed || busy}>
          Verify
        </button>
      </form>
      <form onSubmit={verifyMany}>
        <label for="verify-batch">Or paste up to {MAX_BATCH} addresses (one per line)</label>
        <textarea
          id="verify-batch"
          rows={5}
          disabled={!allowed}
          value={batch}
          onInput={(event) => setBatch(event.currentTarget.value)}
          aria-describedby="batch-count"
        />
        <p id="batch-count" class={emails.length > MAX_BATCH ? 'problem' : 'hint'}>
          {num(emails.length)} address{emails.length === 1 ? '' : 'es'}
          {emails.length > MAX_BATCH ? `: at most ${MAX_BATCH} at a time` : ''}
        </p>
        <button type="submit" disabled={!allowed || busy || emails.length === 0 || emails.length > MAX_BATCH}>
          Verify all
        </button>
      </form>
      <Problem error={error} scope={session.scope} />
      <section aria-live="polite" aria-busy={busy} aria-labelledby="results-title" id="results">
        <h2 id="results-title" class={results.length || busy ? undefined : 'visually-hidden'}>
          Results
        </h2>
        {busy && <p>Checking…</p>}
        {results.map((result, index) => (
          <ResultCard key={`${index}:${result.email}`} result={result} />
        ))}
      </section>
    </>
  );
}
