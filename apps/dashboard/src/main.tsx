import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Scope } from './api';
import { SignIn, SignUp } from './pages/auth';
import { Finder } from './pages/finder';
import { Keys } from './pages/keys';
import { Lists } from './pages/lists';
import { Overview } from './pages/overview';
import { Verify } from './pages/verify';
import { WidgetPage } from './pages/widget';
import { scopeWords } from './ui';
import 'uplot/dist/uPlot.min.css';
import './dashboard.css';

export interface Session {
  key: string;
  scope: Scope;
}

/** sessionStorage only: the key dies with the tab, and never lingers in localStorage. */
const SESSION = 'mailguard.session';

function loadSession(): Session | null {
  try {
    const saved = sessionStorage.getItem(SESSION);
    return saved ? (JSON.parse(saved) as Session) : null;
  } catch {
    return null;
  }
}

const PAGES = [
  { path: 'overview', title: 'Overview' },
  { path: 'keys', title: 'Keys' },
  { path: 'verify', title: 'Verify' },
  { path: 'lists', title: 'Lists' },
  { path: 'finder', title: 'Finder' },
  { path: 'widget', title: 'Widget' },
] as const;

const route = () => location.hash.replace(/^#\/?/, '') || 'overview';

function App() {
  const [session, setSession] = useState<Session | null>(loadSession);
  const [path, setPath] = useState(route);
  useEffect(() => {
    const onHash = () => setPath(route());
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  const page = PAGES.find((candidate) => candidate.path === path);
  useEffect(() => {
    document.title = `${session ? (page?.title ?? 'Not found') : path === 'signup' ? 'Sign up' : 'Sign in'} · MailGuard`;
    document.getElementById('main')?.focus();
  }, [path, session, page]);

  const signIn = (next: Session) => {
    sessionStorage.setItem(SESSION, JSON.stringify(next));
    setSession(next);
    location.hash = '#/overview';
  };
  const signOut = () => {
    sessionStorage.removeItem(SESSION);
    setSession(null);
    location.hash = '#/signin';
  };

  if (!session) {
    return (
      <>
        <header class="top">
          <span class="brand">MailGuard</span>
        </header>
        <main id="main" tabIndex={-1}>
          {path === 'signup' ? <SignUp /> : <SignIn onSignIn={signIn} />}
        </main>
      </>
    );
  }
  return (
    <>
      <header class="top">
        <span class="brand">MailGuard</span>
        <nav aria-label="Dashboard">
          <ul>
            {PAGES.map((entry) => (
              <li key={entry.path}>
                <a href={`#/${entry.path}`} aria-current={entry.path === path ? 'page' : undefined}>
                  {entry.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <span title={scopeWords(session.scope)}>
            {session.key.slice(0, 12)}… ({session.scope})
          </span>
          <button type="button" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {path === 'overview' || !page ? <Overview session={session} /> : null}
        {path === 'keys' && <Keys session={session} />}
        {path === 'verify' && <Verify session={session} />}
        {path === 'lists' && <Lists session={session} />}
        {path === 'finder' && <Finder session={session} />}
        {path === 'widget' && <WidgetPage session={session} />}
      </main>
    </>
  );
}

render(<App />, document.getElementById('app') as HTMLElement);
