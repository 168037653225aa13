import { useEffect, useState } from 'preact/hooks';
import { ApiError, call, type List, type Page } from '../api';
import { headerOf, likelyEmailColumn, save } from '../csv';
import type { Session } from '../main';
import { Pager, Problem, ReadOnly, useLoad, when } from '../ui';

/** Two seconds: progress feels live while a list costs at most 30 of the key's 60 requests a minute. */
const POLL_MS = 2_000;
const RUNNING: Array<List['status']> = ['queued', 'processing'];

function eta(seconds: number | null): string {
  if (seconds === null) return 'estimating…';
  if (seconds < 60) return `about ${Math.max(1, Math.round(seconds))} s left`;
  return `about ${Math.round(seconds / 60)} min left`;
}

function Upload({ session, onUploaded }: { session: Session; onUploaded: (list: List) => void }) {
  const [file, setFile] = useState<File | null>(null);
  const [header, setHeader] = useState<string[]>([]);
  const [column, setColumn] = useState('');
  const [over, setOver] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const choose = async (picked: File | undefined) => {
    if (!picked) return;
    setFile(picked);
    const names = headerOf(await picked.slice(0, 65_536).text());
    setHeader(names);
    setColumn(likelyEmailColumn(names) ?? names[0] ?? '');
  };
  const submit = async (event: Event) => {
    event.preventDefault();
    if (!file) return;
    const form = new FormData();
    form.append('name', file.name);
    if (column) form.append('emailColumn', column);
    form.append('file', file, file.name);
    setBusy(true);
    setError(null);
    try {
      onUploaded(await call<List>(session.key, 'POST', '/lists', { form }));
      setFile(null);
      setHeader([]);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section aria-labelledby="upload-title">
      <h2 id="upload-title">Upload a list</h2>
      <form onSubmit={submit}>
        <div
          class={`drop${over ? ' over' : ''}`}
          onDragOver={(event) => {
            event.preventDefault();
            setOver(true);
          }}
          onDragLeave={() => setOver(false)}
          onDrop={(event) => {
            event.preventDefault();
            setOver(false);
            void choose(event.dataTransfer?.files[0]);
          }}
        >
          <p>Drop a CSV file here, or</p>
          <label for="list-file">Choose a CSV file</label>
          <input
            id="list-file"
            type="file"
            accept=".csv,text/csv"
            onChange={(event) => void choose(event.currentTarget.files?.[0])}
          />
          {file && (
            <p>
              Selected: {file.name} ({Math.ceil(file.size / 1024)} KB)
            </p>
          )}
        </div>
        {header.length > 0 && (
          <>
            <label for="list-column">Column with the email addresses</label>
            <select id="list-column" value={column} onChange={(event) => setColumn(event.currentTarget.value)}>
              {header.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          </>
        )}
        <button type="submit" disabled={!file || busy}>
          {busy ? 'Uploading…' : 'Upload and verify'}
        </button>
      </form>
      <Problem error={error} scope={session.scope} />
    </section>
  );
}

function Current({
  session,
  list,
  canWrite,
  onChange,
  onGone,
}: {
  session: Session;
  list: List;
  canWrite: boolean;
  onChange: (list: List) => void;
  onGone: () => void;
}) {
  const [error, setError] = useState<unknown>(null);
  const [confirm, setConfirm] = useState(false);
  const running = RUNNING.includes(list.status);
  useEffect(() => {
    if (!running) return;
    let live = true;
    const timer = setTimeout(() => {
      call<List>(session.key, 'GET', `/lists/${list.id}`).then(
        (next) => live && onChange(next),
        (failure: unknown) => {
          if (!live) return;
          setError(failure);
          // A rate limit pauses polling for the time asked; anything else retries at the usual pace.
          const wait = failure instanceof ApiError && failure.retryAfter ? failure.retryAfter * 1000 : POLL_MS;
          setTimeout(() => live && onChange({ ...list }), wait);
        },
      );
    }, POLL_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [list]);
  const act = async (run: () => Promise<void>) => {
    setError(null);
    try {
      await run();
    } catch (failure) {
      setError(failure);
    }
  };
  const download = (format: 'csv' | 'json') =>
    act(async () => {
      if (format === 'csv') {
        const response = await call<Response>(session.key, 'GET', `/lists/${list.id}/results?format=csv`, {
          raw: true,
        });
        save(await response.blob(), `${list.name.replace(/\.csv$/i, '')}-results.csv`);
        return;
      }
      const rows: unknown[] = [];
      for (let page = 1; ; page++) {
        const answer = await call<Page<unknown>>(
          session.key,
          'GET',
          `/lists/${list.id}/results?format=json&limit=100&page=${page}`,
        );
        rows.push(...answer.data);
        if (page * answer.limit >= answer.total) break;
      }
      save(
        new Blob([JSON.stringify(rows, null, 2)], { type: 'application/json' }),
        `${list.name.replace(/\.csv$/i, '')}-results.json`,
      );
    });
  const remove = () =>
    act(async () => {
      const answer = await call<List | undefined>(session.key, 'DELETE', `/lists/${list.id}`);
      setConfirm(false);
      if (answer) onChange(answer);
      else onGone();
    });
  return (
    <section aria-labelledby="current-title" id="current-list">
      <h2 id="current-title">{list.name}</h2>
      <p>
        Status: <strong id="list-status">{list.status}</strong>
        {list.error && ` (${list.error})`}
      </p>
      {list.webhook && (
        <p id="list-webhook">
          Webhook: <strong>{list.webhook.status}</strong>
          {list.webhook.status !== 'delivered' &&
            ` after ${list.webhook.attempts} attempt${list.webhook.attempts === 1 ? '' : 's'}`}
          {list.webhook.lastError && ` (last: ${list.webhook.lastError})`}
          {list.webhook.nextAttemptAt && ` · next at ${new Date(list.webhook.nextAttemptAt).toLocaleTimeString()}`}
        </p>
      )}
      <label for="list-progress">Progress</label>
      <progress id="list-progress" max={100} value={list.percent} />
      <p aria-live="polite" id="list-progress-text">
        {list.percent}% · {list.processed} of {list.total} processed
        {running ? ` · ${eta(list.etaSeconds)}` : ''}
      </p>
      {list.expiredAt && (
        <p id="list-expired">
          Results expired: the addresses of this list were erased on {when(list.expiredAt)}, after the retention period.
          Its counts are kept.
        </p>
      )}
      <dl class="figures" aria-live="polite">
        <div>
          <dt>Valid</dt>
          <dd id="count-valid">{list.counts.valid}</dd>
        </div>
        <div>
          <dt>Risky</dt>
          <dd id="count-risky">{list.counts.risky}</dd>
        </div>
        <div>
          <dt>Invalid</dt>
          <dd id="count-invalid">{list.counts.invalid}</dd>
        </div>
        <div>
          <dt>Duplicates</dt>
          <dd>{list.duplicates}</dd>
        </div>
      </dl>
      <div class="actions">
        {list.status === 'completed' && !list.expiredAt && (
          <>
            <button type="button" onClick={() => void download('csv')}>
              Download CSV
            </button>
            <button type="button" onClick={() => void download('json')}>
              Download JSON
            </button>
          </>
        )}
        {canWrite && running && (
          <button type="button" class="danger" onClick={() => void remove()}>
            Cancel list
          </button>
        )}
        {canWrite && !running && !confirm && (
          <button type="button" class="danger" onClick={() => setConfirm(true)}>
            Delete list
          </button>
        )}
        {confirm && (
          <div role="group" aria-label="Confirm deletion">
            <span>Delete this list and its results for good?</span>
            <button type="button" class="danger" onClick={() => void remove()}>
              Yes, delete
            </button>
            <button type="button" onClick={() => setConfirm(false)}>
              Keep it
            </button>
          </div>
        )}
      </div>
      <Problem error={error} scope={session.scope} />
    </section>
  );
}

export function Lists({ session }: { session: Session }) {
  const canRead = session.scope !== 'verify';
  const canWrite = session.scope === 'full' || session.scope === 'lists';
  const [page, setPage] = useState(1);
  const [current, setCurrent] = useState<List | null>(null);
  const past = useLoad(
    () => call<Page<List>>(session.key, 'GET', `/lists?page=${page}&limit=10`),
    [page, current?.status],
  );
  return (
    <>
      <h1>Lists</h1>
      {!canRead && <ReadOnly scope={session.scope} needs="lists need a full, lists or read-only key." />}
      {canRead && !canWrite && (
        <ReadOnly scope={session.scope} needs="uploading, cancelling and deleting lists need a full or lists key." />
      )}
      {canWrite && <Upload session={session} onUploaded={setCurrent} />}
      {current && (
        <Current
          session={session}
          list={current}
          canWrite={canWrite}
          onChange={setCurrent}
          onGone={() => setCurrent(null)}
        />
      )}
      <section aria-labelledby="past-title">
        <h2 id="past-title">Your lists</h2>
        <Problem error={past.error} scope={session.scope} onRetry={past.reload} />
        {past.data && (
          <>
            <div class="scroll">
              <table id="lists">
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Status</th>
                    <th scope="col">Rows</th>
                    <th scope="col">Valid / risky / invalid</th>
                    <th scope="col">Created</th>
                    <th scope="col">
                      <span class="visually-hidden">Open</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {past.data.data.map((list) => (
                    <tr key={list.id}>
                      <td>{list.name}</td>
                      <td>{list.expiredAt ? `${list.status}, results expired` : list.status}</td>
                      <td>{list.total}</td>
                      <td>
                        {list.counts.valid} / {list.counts.risky} / {list.counts.invalid}
                      </td>
                      <td>{when(list.createdAt)}</td>
                      <td>
                        <button type="button" onClick={() => setCurrent(list)} aria-label={`Open ${list.name}`}>
                          Open
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Pager
              label="List pages"
              page={past.data.page}
              limit={past.data.limit}
              total={past.data.total}
              onPage={setPage}
            />
          </>
        )}
      </section>
    </>
  );
}
