import { useState } from 'preact/hooks';
import { call, detectScope, type Signup } from '../api';
import type { Session } from '../main';
import { Problem, Secret } from '../ui';

/** #15: the new key and webhook secret, shown this once. */
export function SignUp() {
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [created, setCreated] = useState<Signup | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      setCreated(await call<Signup>(null, 'POST', '/accounts', { body: name ? { email, name } : { email } }));
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  if (created) {
    return (
      <section aria-labelledby="created-title">
        <h1 id="created-title">Your account is ready</h1>
        <p>
          {created.account.email} starts with {created.account.credits.toLocaleString()} credits.
        </p>
        <p class="warning" role="alert">
          Copy these two now: they will not be shown again. MailGuard stores only a hash of the key.
        </p>
        <Secret id="new-key" label="Secret API key" value={created.apiKey} />
        <Secret id="new-webhook-secret" label="Webhook secret" value={created.webhookSecret} />
        <p>
          <a href="#/signin">I have copied them: sign in</a>
        </p>
      </section>
    );
  }
  return (
    <section aria-labelledby="signup-title">
      <h1 id="signup-title">Create an account</h1>
      <form onSubmit={submit}>
        <label for="signup-email">Work email</label>
        <input
          id="signup-email"
          type="email"
          required
          autoComplete="email"
          value={email}
          onInput={(event) => setEmail(event.currentTarget.value)}
        />
        <label for="signup-name">Name (optional)</label>
        <input
          id="signup-name"
          autoComplete="name"
          value={name}
          onInput={(event) => setName(event.currentTarget.value)}
        />
        <button type="submit" disabled={busy}>
          {busy ? 'Creating…' : 'Sign up'}
        </button>
      </form>
      <Problem error={error} />
      <p>
        Already have a key? <a href="#/signin">Sign in</a>
      </p>
    </section>
  );
}

/** Sign-in is pasting a key: its scope is read with free calls, then kept for this tab only. */
export function SignIn({ onSignIn }: { onSignIn: (session: Session) => void }) {
  const [key, setKey] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    const trimmed = key.trim();
    setBusy(true);
    setError(null);
    try {
      onSignIn({ key: trimmed, scope: await detectScope(trimmed) });
    } catch (failure) {
      setError(failure);
      setBusy(false);
    }
  };
  return (
    <section aria-labelledby="signin-title">
      <h1 id="signin-title">Sign in</h1>
      <form onSubmit={submit}>
        <label for="signin-key">API key</label>
        <input
          id="signin-key"
          class="mono"
          required
          autoComplete="off"
          spellcheck={false}
          value={key}
          onInput={(event) => setKey(event.currentTarget.value)}
        />
        <p class="hint" id="signin-hint">
          Paste a secret key (mg_live_…). It is kept in this tab only and forgotten when you sign out or close it.
        </p>
        <button type="submit" disabled={busy} aria-describedby="signin-hint">
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <Problem error={error} />
      <p>
        No account yet? <a href="#/signup">Sign up</a>
      </p>
    </section>
  );
}
