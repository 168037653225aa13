import { useState } from 'preact/hooks';
import { call, type DomainInsight, type FinderAnswer } from '../api';
import type { Session } from '../main';
import { ResultCard } from '../result';
import { Problem, ReadOnly } from '../ui';

export function Finder({ session }: { session: Session }) {
  const allowed = session.scope === 'full' || session.scope === 'verify';
  const [first, setFirst] = useState('');
  const [last, setLast] = useState('');
  const [domain, setDomain] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [found, setFound] = useState<FinderAnswer | null>(null);
  const [insight, setInsight] = useState<DomainInsight | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const query = new URLSearchParams({ firstName: first, lastName: last, domain });
    try {
      const [answer, info] = await Promise.all([
        call<FinderAnswer>(session.key, 'GET', `/email-finder?${query.toString()}`),
        call<DomainInsight>(session.key, 'GET', `/email-finder/domain/${encodeURIComponent(domain.trim())}`),
      ]);
      setFound(answer);
      setInsight(info);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <h1>Find an address</h1>
      {!allowed && <ReadOnly scope={session.scope} needs="the finder is paid and needs a full or verify key." />}
      <p>One credit when an address is found, nothing otherwise.</p>
      <form onSubmit={submit} class="inline">
        <label for="finder-first">First name</label>
        <input
          id="finder-first"
          required
          disabled={!allowed}
          value={first}
          onInput={(event) => setFirst(event.currentTarget.value)}
        />
        <label for="finder-last">Last name</label>
        <input
          id="finder-last"
          required
          disabled={!allowed}
          value={last}
          onInput={(event) => setLast(event.currentTarget.value)}
        />
        <label for="finder-domain">Company domain</label>
        <input
          id="finder-domain"
          required
          disabled={!allowed}
          placeholder="example.com"
          value={domain}
          onInput={(event) => setDomain(event.currentTarget.value)}
        />
        <button type="submit" disabled={!allowed || busy}>
          {busy ? 'Searching…' : 'Find'}
        </button>
      </form>
      <Problem error={error} scope={session.scope} />
      <section aria-live="polite" aria-label="Finder results" id="finder-results">
        {found && (
          <>
            <h2>{found.email ? `Found: ${found.email}` : 'Nobody found at this domain'}</h2>
            {found.email && (
              <p>
                {found.confidence}% confidence{found.pattern ? `, from the pattern ${found.pattern}` : ''}.
              </p>
            )}
            {found.result && <ResultCard result={found.result} />}
            {found.alternatives.length > 0 && (
              <>
                <h3>Other possibilities</h3>
                <ul>
                  {found.alternatives.map((alternative) => (
                    <li key={alternative.email}>
                      {alternative.email} ({alternative.confidence}%)
                    </li>
                  ))}
                </ul>
              </>
            )}
          </>
        )}
        {insight && (
          <>
            <h2>About {insight.domain}</h2>
            <ul>
              <li>Mail provider: {insight.provider ?? 'not recognised'}</li>
              <li>
                Mail servers: {insight.mx.length ? insight.mx.map((record) => record.exchange).join(', ') : 'none'}
              </li>
              <li>
                Accepts any address (catch-all):{' '}
                {insight.catchAll === null ? 'unknown' : insight.catchAll ? 'yes' : 'no'}
              </li>
              <li>
                Address pattern:{' '}
                {insight.pattern ? `${insight.pattern} (${insight.confidence}% of known addresses)` : 'not learned yet'}
              </li>
            </ul>
          </>
        )}
      </section>
    </>
  );
}
