import { useEffect, useState } from 'preact/hooks';
import { BUILT_IN } from '../../../widget/src/messages';
import { LANGS, type BlockReason, type Lang } from '../../../../libs/product/widget/src/languages';
import { ApiError, call, credentialHeaders, type WidgetSettings } from '../api';
import type { Session } from '../main';
import { Problem, ReadOnly, useLoad } from '../ui';

interface GuardGlobal {
  init(options: Record<string, unknown>): void;
}

const SCRIPT = '/v1/widget/widget.js';
const KINDS: BlockReason[] = ['invalid', 'disposable', 'free'];

/** The real widget.js from this service, loaded once (script-src 'self'). */
function loadGuard(): Promise<GuardGlobal> {
  const existing = (window as unknown as { Guard?: GuardGlobal }).Guard;
  if (existing) return Promise.resolve(existing);
  return new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = SCRIPT;
    script.onload = () => resolve((window as unknown as { Guard: GuardGlobal }).Guard);
    script.onerror = () => reject(new Error('widget.js could not be loaded'));
    document.head.append(script);
  });
}

function snippet(settings: WidgetSettings): string {
  const { blockDisposable, blockFree, lang, messages } = settings.defaults;
  const options = {
    apiKey: 'mg_widget_…',
    blockDisposable,
    blockFree,
    lang,
    ...(Object.keys(messages).length ? { messages } : {}),
  };
  return `<script src="${location.origin}${SCRIPT}"></script>\n<script>\n  Guard.init(${JSON.stringify(options, null, 2).replace(/\n/g, '\n  ')});\n</script>`;
}

const VERIFY = `${location.origin}/v1/widget/verify`;
const PREVIEW = '/v1/widget/preview';

/**
 * While the preview is on the page, the widget's own call (POST /v1/widget/verify, the public tier) is sent to the
 * preview path instead, with this tab's credential: free, and not counted against any visitor's 4 checks.
 * Every refusal is reported to `onRefused` so the page can say it (the widget itself lets forms through).
 */
function routePreview(key: string | null, onRefused: (error: ApiError | null) => void): () => void {
  const original = window.fetch;
  const routed: typeof fetch = async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (url !== VERIFY) return original(input, init);
    const response = await original(PREVIEW, {
      ...init,
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', ...credentialHeaders(key, 'POST') },
    });
    if (!response.ok) {
      const body = (await response
        .clone()
        .json()
        .catch(() => ({}))) as { error?: string };
      const retry = Number(response.headers.get('Retry-After'));
      onRefused(
        new ApiError(
          response.status === 429 ? 'rate' : response.status === 403 ? 'scope' : 'other',
          `The preview check was refused: ${body.error ?? `HTTP ${response.status}`}`,
          response.status,
          Number.isFinite(retry) && retry > 0 ? retry : null,
        ),
      );
    } else onRefused(null);
    return response;
  };
  window.fetch = routed;
  return () => {
    if (window.fetch === routed) window.fetch = original;
  };
}

function Preview({ session, settings }: { session: Session; settings: WidgetSettings }) {
  const [error, setError] = useState<unknown>(null);
  useEffect(() => routePreview(session.key, setError), [session.key]);
  useEffect(() => {
    const { blockDisposable, blockFree, lang, messages } = settings.defaults;
    loadGuard().then(
      (guard) => guard.init({ selector: '#preview-email', blockDisposable, blockFree, lang, messages }),
      (failure: Error) => setError(new ApiError('other', failure.message, 0)),
    );
  }, [settings]);
  return (
    <section aria-labelledby="preview-title">
      <h2 id="preview-title">Live preview</h2>
      <p class="hint">
        The real widget with these defaults. Preview checks are free and do not use the public tier; they are limited
        per account and day.
      </p>
      <form class="preview" onSubmit={(event) => event.preventDefault()}>
        <label for="preview-email">Email (preview)</label>
        <input id="preview-email" type="email" />
      </form>
      <div id="preview-problem">
        <Problem error={error} scope={session.scope} />
      </div>
    </section>
  );
}

export function WidgetPage({ session }: { session: Session }) {
  const canRead = session.scope === 'full' || session.scope === 'read-only';
  const canWrite = session.scope === 'full';
  const loaded = useLoad(() => call<WidgetSettings>(session.key, 'GET', '/widget/settings'), []);
  const [draft, setDraft] = useState<WidgetSettings | null>(null);
  const [origins, setOrigins] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (!loaded.data) return;
    setDraft(loaded.data);
    setOrigins(loaded.data.allowedOrigins.join('\n'));
  }, [loaded.data]);
  const defaults = (patch: Partial<WidgetSettings['defaults']>) =>
    draft && setDraft({ ...draft, defaults: { ...draft.defaults, ...patch } });
  const submit = async (event: Event) => {
    event.preventDefault();
    if (!draft) return;
    setError(null);
    setSaved(false);
    const messages = Object.fromEntries(
      Object.entries(draft.defaults.messages).filter(([, text]) => text.trim() !== ''),
    );
    try {
      const next = await call<WidgetSettings>(session.key, 'PUT', '/widget/settings', {
        body: { allowedOrigins: origins.split(/\s+/).filter(Boolean), defaults: { ...draft.defaults, messages } },
      });
      setDraft(next);
      setOrigins(next.allowedOrigins.join('\n'));
      setSaved(true);
    } catch (failure) {
      setError(failure);
    }
  };
  const lang = (draft?.defaults.lang ?? 'en') as Lang;
  return (
    <>
      <h1>Form widget</h1>
      {!canRead && <ReadOnly scope={session.scope} needs="widget settings need a full or read-only key." />}
      {canRead && !canWrite && <ReadOnly scope={session.scope} needs="changing them needs a full key." />}
      <Problem error={loaded.error} scope={session.scope} onRetry={loaded.reload} />
      {draft && (
        <>
          <form onSubmit={submit}>
            <fieldset disabled={!canWrite}>
              <legend>Settings</legend>
              <label for="widget-origins">Allowed origins (one per line; none = any site)</label>
              <textarea
                id="widget-origins"
                rows={3}
                value={origins}
                placeholder="https://shop.example.com"
                onInput={(event) => setOrigins(event.currentTarget.value)}
              />
              <div class="check">
                <input
                  id="widget-disposable"
                  type="checkbox"
                  checked={draft.defaults.blockDisposable}
                  onChange={(event) => defaults({ blockDisposable: event.currentTarget.checked })}
                />
                <label for="widget-disposable">Block disposable addresses</label>
              </div>
              <div class="check">
                <input
                  id="widget-free"
                  type="checkbox"
                  checked={draft.defaults.blockFree}
                  onChange={(event) => defaults({ blockFree: event.currentTarget.checked })}
                />
                <label for="widget-free">Block free providers (Gmail, Yahoo, …)</label>
              </div>
              <label for="widget-lang">Language</label>
              <select id="widget-lang" value={lang} onChange={(event) => defaults({ lang: event.currentTarget.value })}>
                {LANGS.map((value) => (
                  <option key={value} value={value}>
                    {value}
                  </option>
                ))}
              </select>
              {KINDS.map((kind) => (
                <div key={kind}>
                  <label for={`widget-message-${kind}`}>Message for {kind} addresses</label>
                  <input
                    id={`widget-message-${kind}`}
                    placeholder={BUILT_IN[lang][kind]}
                    value={draft.defaults.messages[kind] ?? ''}
                    onInput={(event) =>
                      defaults({ messages: { ...draft.defaults.messages, [kind]: event.currentTarget.value } })
                    }
                  />
                </div>
              ))}
              <button type="submit">Save settings</button>
            </fieldset>
          </form>
          <Problem error={error} scope={session.scope} />
          {saved && <p role="status">Saved.</p>}
          <Preview session={session} settings={draft} />
          <section aria-labelledby="embed-title">
            <h2 id="embed-title">Embed on your site</h2>
            <label for="embed-snippet">Snippet (create a widget key on the Keys page and put it in apiKey)</label>
            <textarea id="embed-snippet" class="mono" readOnly rows={10} value={snippet(draft)} />
            <button type="button" onClick={() => void navigator.clipboard.writeText(snippet(draft))}>
              Copy snippet
            </button>
          </section>
        </>
      )}
    </>
  );
}
