import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { call, onSessionEnded, rights, type Session } from './api';
import { Account } from './pages/account';
import { AcceptInvite, ForgotPassword, ResetPassword, SignIn, SignInWithKey, SignUp } from './pages/auth';
import { Finder } from './pages/finder';
import { Keys } from './pages/keys';
import { Lists } from './pages/lists';
import { Overview } from './pages/overview';
import { Verify } from './pages/verify';
import { WidgetPage } from './pages/widget';
import { scopeWords } from './ui';
import 'uplot/dist/uPlot.min.css';
import './dashboard.css';

export type { Session } from './api';

/** sessionStorage only: a key dies with the tab, and never lingers in localStorage. */
const SESSION = 'mailguard.session';

function loadSession(): Session | null {
  try {
    const saved = sessionStorage.getItem(SESSION);
    const parsed = saved ? (JSON.parse(saved) as { kind?: string; key?: string; scope: Session['scope'] }) : null;
    // Saved before password sessions existed: a key without its kind.
    if (parsed && !parsed.kind && parsed.key) return { kind: 'key', key: parsed.key, scope: parsed.scope };
    return parsed as Session | null;
  } catch {
    return null;
  }
}

/** The pages, and who may see each: `billing` pages need the billing right, `build` ones the building right. */
const PAGES = [
  { path: 'overview', title: 'Overview', needs: null },
  { path: 'keys', title: 'Keys', needs: 'build' },
  { path: 'verify', title: 'Verify', needs: 'build' },
  { path: 'lists', title: 'Lists', needs: 'build' },
  { path: 'finder', title: 'Finder', needs: 'build' },
  { path: 'widget', title: 'Widget', needs: 'build' },
  { path: 'account', title: 'Account', needs: 'login' },
] as const;

const OUT_TITLES: Record<string, string> = {
  signup: 'Sign up',
  'signin-key': 'Sign in with an API key',
  forgot: 'Reset your password',
  reset: 'Choose a new password',
  invite: 'Accept an invitation',
};

function route(): { path: string; params: URLSearchParams } {
  const [path, query] = location.hash.replace(/^#\/?/, '').split('?');
  return { path: path || 'overview', params: new URLSearchParams(query ?? '') };
}

function App() {
  const [session, setSession] = useState<Session | null>(loadSession);
  const [notice, setNotice] = useState<string | null>(null);
  const [{ path, params }, setRoute] = useState(route);
  useEffect(() => {
    const onHash = () => setRoute(route());
    addEventListener('hashchange', onHash);
    // A change of the hash between the first render and this effect fired no listener: read it once more.
    onHash();
    return () => removeEventListener('hashchange', onHash);
  }, []);
  const can = session ? rights(session) : null;
  const visible = PAGES.filter(
    (entry) =>
      entry.needs === null ||
      (entry.needs === 'login' ? session?.kind === 'login' : entry.needs === 'build' ? can?.build : true),
  );
  const page = visible.find((candidate) => candidate.path === path);
  // Focus goes to the new page's heading after a navigation (for screen readers), never on the first load,
  // and never with a frame around the page: keyboard focus stays visible on controls only.
  const first = useRef(true);
  useEffect(() => {
    document.title = `${session ? (page?.title ?? 'Overview') : (OUT_TITLES[path] ?? 'Sign in')} · MailGuard`;
    if (first.current) {
      first.current = false;
      return;
    }
    const heading = document.querySelector<HTMLElement>('main h1');
    if (heading) {
      heading.tabIndex = -1;
      heading.focus({ preventScroll: true });
    }
  }, [path, session, page]);

  /** Signs this tab out; `message` says why when the tab did not ask (a revoked key, an ended session). */
  const end = (message: string | null) => {
    const keyed = session?.kind === 'key';
    sessionStorage.removeItem(SESSION);
    onSessionEnded(null);
    setSession(null);
    setNotice(message);
    location.hash = message && keyed ? '#/signin-key' : '#/signin';
  };
  useEffect(() => {
    if (!session) return;
    onSessionEnded(() =>
      end(
        session.kind === 'key'
          ? 'You have been signed out: the key you were signed in with is no longer valid (it was revoked). Sign in again.'
          : 'You have been signed out: your session has ended. Sign in again.',
      ),
    );
    return () => onSessionEnded(null);
  }, [session]);

  const signIn = (next: Session) => {
    sessionStorage.setItem(SESSION, JSON.stringify(next));
    setNotice(null);
    setSession(next);
    location.hash = '#/overview';
  };
  const signOut = async () => {
    if (session?.kind === 'login') {
      try {
        await call(null, 'POST', '//auth/logout', { signingIn: true });
      } catch {
        // Signed out here whatever the service says: the cookie is the service's to end.
      }
    }
    end(null);
  };

  if (!session) {
    return (
      <>
        <header class="top">
          <span class="brand">MailGuard</span>
        </header>
        <main id="main">
          {notice && (
            <p class="note" role="status" id="signed-out">
              {notice}
            </p>
          )}
          {path === 'signup' ? (
            <SignUp />
          ) : path === 'signin-key' ? (
            <SignInWithKey onSignIn={signIn} />
          ) : path === 'forgot' ? (
            <ForgotPassword />
          ) : path === 'reset' ? (
            <ResetPassword token={params.get('token') ?? ''} />
          ) : path === 'invite' ? (
            <AcceptInvite token={params.get('token') ?? ''} onSignIn={signIn} />
          ) : (
            <SignIn onSignIn={signIn} />
          )}
        </main>
      </>
    );
  }
  const who =
    session.kind === 'key'
      ? `${session.key.slice(0, 12)}… (${session.scope})`
      : `${session.account.email}${session.account.role ? ` (${session.account.role})` : ''}`;
  return (
    <>
      <header class="top">
        <span class="brand">MailGuard</span>
        <nav aria-label="Dashboard">
          <ul>
            {visible.map((entry) => (
              <li key={entry.path}>
                <a
                  href={`#/${entry.path}`}
                  aria-current={entry.path === (page?.path ?? 'overview') ? 'page' : undefined}
                >
                  {entry.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <span title={scopeWords(session.scope)} id="who">
            {who}
          </span>
          <button type="button" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main">
        {(path === 'overview' || !page) && <Overview session={session} />}
        {page?.path === 'keys' && <Keys session={session} onSignOut={end} />}
        {page?.path === 'verify' && <Verify session={session} />}
        {page?.path === 'lists' && <Lists session={session} />}
        {page?.path === 'finder' && <Finder session={session} />}
        {page?.path === 'widget' && <WidgetPage session={session} />}
        {page?.path === 'account' && session.kind === 'login' && <Account session={session} />}
      </main>
    </>
  );
}

render(<App />, document.getElementById('app') as HTMLElement);
