import { useState } from 'preact/hooks';
import { ApiError, call, detectScope, loginSession, num, type Session, type SignedIn, type Signup } from '../api';
import { Problem, Secret } from '../ui';

/** A form's busy flag and refusal around one submission. */
function useSubmit(run: () => Promise<void>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await run();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, submit };
}

/** The words of a refused sign-in: it says the credentials were not accepted, never that a session ended. */
function SignInProblem({ error, what }: { error: unknown; what: string }) {
  if (error instanceof ApiError && (error.kind === 'auth' || error.status === 404))
    return (
      <div class="problem" role="alert" data-kind="auth" id="signin-refused">
        <p>{what} not accepted. Check it and try again.</p>
      </div>
    );
  return <Problem error={error} />;
}

function PasswordInput({
  id,
  label,
  value,
  onInput,
  fresh = false,
}: {
  id: string;
  label: string;
  value: string;
  onInput: (value: string) => void;
  fresh?: boolean;
}) {
  return (
    <>
      <label for={id}>{label}</label>
      <input
        id={id}
        type="password"
        required
        minLength={fresh ? 10 : undefined}
        autoComplete={fresh ? 'new-password' : 'current-password'}
        aria-describedby={fresh ? `${id}-hint` : undefined}
        value={value}
        onInput={(event) => onInput(event.currentTarget.value)}
      />
      {fresh && (
        <p class="hint" id={`${id}-hint`}>
          At least 10 characters, and not your email address.
        </p>
      )}
    </>
  );
}

/** #15 with a password: the new key and webhook secret, shown this once. */
export function SignUp() {
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [created, setCreated] = useState<Signup | null>(null);
  const form = useSubmit(async () => {
    if (password.trim().toLowerCase() === email.trim().toLowerCase())
      throw new ApiError('input', 'The password must not be your email address.', 400);
    setCreated(await call<Signup>(null, 'POST', '/accounts', { body: { email, name, password }, signingIn: true }));
  });
  if (created) {
    return (
      <section aria-labelledby="created-title">
        <h1 id="created-title">Your account is ready</h1>
        <p>
          {created.account.email} starts with {num(created.account.credits)} credits.
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
      <form onSubmit={form.submit}>
        <label for="signup-email">Work email</label>
        <input
          id="signup-email"
          type="email"
          required
          autoComplete="email"
          value={email}
          onInput={(event) => setEmail(event.currentTarget.value)}
        />
        <label for="signup-name">Name</label>
        <input
          id="signup-name"
          required
          autoComplete="name"
          value={name}
          onInput={(event) => setName(event.currentTarget.value)}
        />
        <PasswordInput id="signup-password" label="Password" value={password} onInput={setPassword} fresh />
        <button type="submit" disabled={form.busy}>
          {form.busy ? 'Creating…' : 'Sign up'}
        </button>
      </form>
      <Problem error={form.error} />
      <p>
        Already have an account? <a href="#/signin">Sign in</a>
      </p>
    </section>
  );
}

/** Email and password: the service sets the session cookie; the account (and a member's role) come back. */
export function SignIn({ onSignIn }: { onSignIn: (session: Session) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const form = useSubmit(async () => {
    const answer = await call<SignedIn>(null, 'POST', '//auth/login', {
      body: { email: email.trim(), password },
      signingIn: true,
    });
    onSignIn(loginSession(answer));
  });
  return (
    <section aria-labelledby="signin-title">
      <h1 id="signin-title">Sign in</h1>
      <form onSubmit={form.submit}>
        <label for="signin-email">Email</label>
        <input
          id="signin-email"
          type="email"
          required
          autoComplete="username"
          value={email}
          onInput={(event) => setEmail(event.currentTarget.value)}
        />
        <PasswordInput id="signin-password" label="Password" value={password} onInput={setPassword} />
        <button type="submit" disabled={form.busy}>
          {form.busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <SignInProblem error={form.error} what="This email and password were" />
      <ul class="links">
        <li>
          <a href="#/forgot">Forgot your password?</a>
        </li>
        <li>
          <a href="#/signin-key">Sign in with an API key</a> (accounts without a password)
        </li>
        <li>
          No account yet? <a href="#/signup">Sign up</a>
        </li>
      </ul>
    </section>
  );
}

/** Pasting a key: its scope is read with free calls, then kept for this tab only. */
export function SignInWithKey({ onSignIn }: { onSignIn: (session: Session) => void }) {
  const [key, setKey] = useState('');
  const form = useSubmit(async () => {
    const trimmed = key.trim();
    onSignIn({ kind: 'key', key: trimmed, scope: await detectScope(trimmed) });
  });
  return (
    <section aria-labelledby="signin-title">
      <h1 id="signin-title">Sign in with an API key</h1>
      <form onSubmit={form.submit}>
        <label for="signin-key">API key</label>
        <input
          id="signin-key"
          class="mono"
          required
          autoComplete="off"
          spellcheck={false}
          aria-describedby="signin-hint"
          value={key}
          onInput={(event) => setKey(event.currentTarget.value)}
        />
        <p class="hint" id="signin-hint">
          Paste a secret key (mg_live_…). It is kept in this tab only and forgotten when you sign out or close it.
        </p>
        <button type="submit" disabled={form.busy}>
          {form.busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <SignInProblem error={form.error} what="This key was" />
      <p>
        <a href="#/signin">Sign in with email and password</a> · <a href="#/signup">Sign up</a>
      </p>
    </section>
  );
}

/** 202 whatever the address: the page never says whether an account exists. */
export function ForgotPassword() {
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState(false);
  const form = useSubmit(async () => {
    await call(null, 'POST', '//auth/password-reset', { body: { email: email.trim() }, signingIn: true });
    setSent(true);
  });
  return (
    <section aria-labelledby="forgot-title">
      <h1 id="forgot-title">Reset your password</h1>
      {sent ? (
        <p role="status" id="reset-sent">
          If an account uses {email}, a link to choose a new password is on its way. It works once, for 30 minutes.
        </p>
      ) : (
        <form onSubmit={form.submit}>
          <label for="forgot-email">Email</label>
          <input
            id="forgot-email"
            type="email"
            required
            autoComplete="email"
            value={email}
            onInput={(event) => setEmail(event.currentTarget.value)}
          />
          <button type="submit" disabled={form.busy}>
            Send the link
          </button>
        </form>
      )}
      <Problem error={form.error} />
      <p>
        <a href="#/signin">Back to sign in</a>
      </p>
    </section>
  );
}

/** The page the emailed link opens (`#/reset?token=…`): a new password, then every session has ended. */
export function ResetPassword({ token }: { token: string }) {
  const [password, setPassword] = useState('');
  const [done, setDone] = useState(false);
  const form = useSubmit(async () => {
    await call(null, 'POST', '//auth/password-reset/confirm', { body: { token, password }, signingIn: true });
    setDone(true);
  });
  return (
    <section aria-labelledby="reset-title">
      <h1 id="reset-title">Choose a new password</h1>
      {!token && (
        <p class="problem" role="alert">
          This link has no token: open the link from the email again.
        </p>
      )}
      {done ? (
        <p role="status" id="reset-done">
          Your password has been changed and every session has been signed out. <a href="#/signin">Sign in</a>
        </p>
      ) : (
        <form onSubmit={form.submit}>
          <PasswordInput id="reset-password" label="New password" value={password} onInput={setPassword} fresh />
          <button type="submit" disabled={form.busy || !token}>
            Change the password
          </button>
        </form>
      )}
      <SignInProblem error={form.error} what="This link was" />
    </section>
  );
}

/** The page an invitation opens (`#/invite?token=…`): the member's password, then a session. */
export function AcceptInvite({ token, onSignIn }: { token: string; onSignIn: (session: Session) => void }) {
  const [password, setPassword] = useState('');
  const form = useSubmit(async () => {
    const answer = await call<SignedIn>(null, 'POST', '//auth/invitations/accept', {
      body: { token, password },
      signingIn: true,
    });
    onSignIn(loginSession(answer));
  });
  return (
    <section aria-labelledby="invite-title">
      <h1 id="invite-title">Accept an invitation</h1>
      <form onSubmit={form.submit}>
        <PasswordInput id="invite-password" label="Choose your password" value={password} onInput={setPassword} fresh />
        <button type="submit" disabled={form.busy || !token}>
          Join the account
        </button>
      </form>
      <SignInProblem error={form.error} what="This invitation was" />
    </section>
  );
}
