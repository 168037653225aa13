import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, call, num, type List, type Page, type VerificationResult } from '../api';
import { chargeableRows, parseCsv, planCsv, save, type CsvPlan } from '../csv';
import type { Session } from '../main';
import { Pager, Problem, ReadOnly, useLoad, when } from '../ui';

/** Two seconds: progress feels live while a list costs at most 30 of the key's 60 requests a minute. */
const POLL_MS = 2_000;
// A paused list (its account suspended) is still open: it goes on once access comes back.
const RUNNING: Array<List['status']> = ['queued', 'processing', 'paused'];

function eta(seconds: number | null): string {
  if (seconds === null) return 'estimating…';
  if (seconds < 60) return `about ${Math.max(1, Math.round(seconds))} s left`;
  return `about ${Math.round(seconds / 60)} min left`;
}

function Upload({ session, onUploaded }: { session: Session; onUploaded: (list: List) => void }) {
  const [file, setFile] = useState<File | null>(null);
  const [records, setRecords] = useState<string[][]>([]);
  const [plan, setPlan] = useState<CsvPlan | null>(null);
  const [column, setColumn] = useState('');
  const [over, setOver] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const choose = async (picked: File | undefined) => {
    if (!picked) return;
    setFile(picked);
    setError(null);
    // Read in the browser: the header, the address column and the cost are known before anything is sent.
    const parsed = parseCsv(await picked.text());
    const next = planCsv(parsed);
    setRecords(parsed);
    setPlan(next);
    setColumn(next.column ?? '');
  };
  const submit = async (event: Event) => {
    event.preventDefault();
    if (!file || !column) return;
    const form = new FormData();
    form.append('name', file.name);
    form.append('emailColumn', column);
    form.append('file', file, file.name);
    setBusy(true);
    setError(null);
    try {
      onUploaded(await call<List>(session.key, 'POST', '/lists', { form }));
      setFile(null);
      setPlan(null);
      setRecords([]);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  const cost = plan && column ? chargeableRows(records, column) : null;
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
              Selected: {file.name} ({num(Math.ceil(file.size / 1024))} KB)
            </p>
          )}
        </div>
        {plan?.headerMissing && (
          <p class="warning" role="alert" id="list-no-header">
            The first row of this file holds an address, so it looks like data, not a header. Add a header row (for
            example "email") as the first line, or the service will read that row as the column names.
          </p>
        )}
        {plan && plan.header.length > 0 && (
          <>
            <label for="list-column">Column with the email addresses</label>
            {!plan.column && (
              <p class="note" id="list-column-ask">
                No column of this file is named like an email column or holds addresses in its first rows: choose the
                one that holds them.
              </p>
            )}
            <select
              id="list-column"
              value={column}
              required
              aria-describedby={plan.column ? undefined : 'list-column-ask'}
              onChange={(event) => setColumn(event.currentTarget.value)}
            >
              {!plan.column && (
                <option value="" disabled>
                  Choose a column…
                </option>
              )}
              {plan.header.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          </>
        )}
        {cost !== null && plan && (
          <p id="list-cost" aria-live="polite">
            Estimated cost: at most <strong>{num(cost)}</strong> credit{cost === 1 ? '' : 's'} for {num(plan.rows)} row
            {plan.rows === 1 ? '' : 's'}: one per unique address that passes a syntax check. Duplicates and malformed
            addresses are free, and unknown results are refunded. The credits are held at upload and settled when the
            list is done.
          </p>
        )}
        <button type="submit" disabled={!file || !column || busy}>
          {busy ? 'Uploading…' : 'Upload and verify'}
        </button>
      </form>
      <Problem error={error} scope={session.scope} />
    </section>
  );
}

/** The verdicts of a finished list and its most frequent reasons, as bars (exact counts; reasons of its first rows). */
const REASON_SAMPLE_PAGES = 3;

function Breakdown({ session, list }: { session: Session; list: List }) {
  const [reasons, setReasons] = useState<{ seen: number; top: Array<[string, number]> } | null>(null);
  useEffect(() => {
    if (list.expiredAt || list.total === 0) return;
    let live = true;
    void (async () => {
      const tally = new Map<string, number>();
      let seen = 0;
      for (let page = 1; page <= REASON_SAMPLE_PAGES; page++) {
        const answer = await call<Page<{ result: VerificationResult | null }>>(
          session.key,
          'GET',
          `/lists/${list.id}/results?format=json&limit=100&page=${page}`,
        );
        for (const row of answer.data) {
          if (!row.result) continue;
          seen++;
          tally.set(row.result.reason, (tally.get(row.result.reason) ?? 0) + 1);
        }
        if (page * answer.limit >= answer.total) break;
      }
      if (live) setReasons({ seen, top: [...tally].sort((a, b) => b[1] - a[1]).slice(0, 5) });
    })().catch(() => undefined);
    return () => {
      live = false;
    };
  }, [list.id, list.status]);
  const statuses: Array<[keyof List['counts'], number]> = [
    ['valid', list.counts.valid],
    ['risky', list.counts.risky],
    ['invalid', list.counts.invalid],
  ];
  const most = Math.max(1, ...statuses.map(([, count]) => count));
  const topMost = Math.max(1, ...(reasons?.top.map(([, count]) => count) ?? [1]));
  return (
    <section aria-labelledby="breakdown-title" id="list-breakdown">
      <h3 id="breakdown-title">Verdicts</h3>
      <ul class="bars" aria-label="Verdicts of the list's rows">
        {statuses.map(([status, count]) => (
          <li key={status} data-status={status}>
            <span>{status}</span>
            <span class={`bar ${status}`} style={{ width: `${(count / most) * 100}%` }} />
            <span>
              {num(count)} ({list.total ? Math.round((count / list.total) * 100) : 0}%)
            </span>
          </li>
        ))}
      </ul>
      {reasons && reasons.top.length > 0 && (
        <>
          <h3 id="reasons-title">
            Top reasons{reasons.seen < list.total ? ` (among the first ${num(reasons.seen)} rows)` : ''}
          </h3>
          <ul class="bars" aria-labelledby="reasons-title" id="list-reasons">
            {reasons.top.map(([reason, count]) => (
              <li key={reason}>
                <span>{reason}</span>
                <span class="bar" style={{ width: `${(count / topMost) * 100}%` }} />
                <span>{num(count)}</span>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

/** An accessible confirmation: a modal dialog (focus kept inside, Escape closes it). */
function Confirm({
  open,
  title,
  text,
  yes,
  no,
  onYes,
  onNo,
}: {
  open: boolean;
  title: string;
  text: string;
  yes: string;
  no: string;
  onYes: () => void;
  onNo: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (open && !element.open) element.showModal();
    if (!open && element.open) element.close();
  }, [open]);
  return (
    <dialog ref={dialog} aria-labelledby="confirm-title" aria-describedby="confirm-text" onClose={onNo}>
      <h2 id="confirm-title">{title}</h2>
      <p id="confirm-text">{text}</p>
      <div class="actions">
        <button type="button" class="danger" onClick={onYes}>
          {yes}
        </button>
        <button type="button" onClick={onNo}>
          {no}
        </button>
      </div>
    </dialog>
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
  const [confirm, setConfirm] = useState<'cancel' | 'delete' | null>(null);
  const running = RUNNING.includes(list.status);
  // While rows wait for a greylisting retry, an estimate of the time left would only grow: the wait is said instead.
  const waiting = list.greylisted && list.greylisted.rows > 0 ? list.greylisted : null;
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
      setConfirm(null);
      const answer = await call<List | undefined>(session.key, 'DELETE', `/lists/${list.id}`);
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
      {list.status === 'paused' && (
        <p id="list-paused" role="status">
          Paused while the account is suspended: no more rows are checked, and the credits stay held.
        </p>
      )}
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
        {list.percent}% · {num(list.processed)} of {num(list.total)} processed
        {running && !waiting ? ` · ${eta(list.etaSeconds)}` : ''}
      </p>
      {running && waiting && (
        <p id="list-greylist" role="status">
          {num(waiting.rows)} row{waiting.rows === 1 ? '' : 's'} waiting for a greylisting retry (next try at{' '}
          {new Date(waiting.nextRetryAt).toLocaleTimeString()}): the receiving server asked us to come back later.
        </p>
      )}
      <p id="list-credits">
        Credits: <strong id="list-held">{num(list.creditsHeld)}</strong> held,{' '}
        <strong id="list-charged">{num(list.creditsCharged)}</strong> charged
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
          <dd id="count-valid">{num(list.counts.valid)}</dd>
        </div>
        <div>
          <dt>Risky</dt>
          <dd id="count-risky">{num(list.counts.risky)}</dd>
        </div>
        <div>
          <dt>Invalid</dt>
          <dd id="count-invalid">{num(list.counts.invalid)}</dd>
        </div>
        <div>
          <dt>Duplicates</dt>
          <dd>{num(list.duplicates)}</dd>
        </div>
      </dl>
      {list.status === 'completed' && <Breakdown session={session} list={list} />}
      <div class="actions">
        {!running && !list.expiredAt && (
          <>
            <button type="button" onClick={() => void download('csv')}>
              {list.status === 'completed' ? 'Download CSV' : 'Download partial results (CSV)'}
            </button>
            <button type="button" onClick={() => void download('json')}>
              {list.status === 'completed' ? 'Download JSON' : 'Download partial results (JSON)'}
            </button>
          </>
        )}
        {canWrite && running && (
          <button type="button" class="danger" onClick={() => setConfirm('cancel')}>
            Cancel list
          </button>
        )}
        {canWrite && !running && (
          <button type="button" class="danger" onClick={() => setConfirm('delete')}>
            Delete list
          </button>
        )}
      </div>
      <Confirm
        open={confirm !== null}
        title={confirm === 'cancel' ? `Cancel ${list.name}?` : `Delete ${list.name}?`}
        text={
          confirm === 'cancel'
            ? 'The rows not yet verified are dropped and their held credits come back. The rows already verified stay: their results can still be downloaded.'
            : 'The list and its results are deleted for good.'
        }
        yes={confirm === 'cancel' ? 'Yes, cancel the list' : 'Yes, delete'}
        no={confirm === 'cancel' ? 'Keep it running' : 'Keep it'}
        onYes={() => void remove()}
        onNo={() => setConfirm(null)}
      />
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
            <div>
              <table id="lists" class="cards">
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Status</th>
                    <th scope="col">Rows</th>
                    <th scope="col">Valid / risky / invalid</th>
                    <th scope="col">Credits held / charged</th>
                    <th scope="col">Created</th>
                    <th scope="col">
                      <span class="visually-hidden">Open</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {past.data.data.map((list) => (
                    <tr key={list.id}>
                      <td data-label="Name">{list.name}</td>
                      <td data-label="Status">{list.expiredAt ? `${list.status}, results expired` : list.status}</td>
                      <td data-label="Rows">{num(list.total)}</td>
                      <td data-label="Valid / risky / invalid">
                        {num(list.counts.valid)} / {num(list.counts.risky)} / {num(list.counts.invalid)}
                      </td>
                      <td data-label="Credits held / charged" class="list-credits">
                        {num(list.creditsHeld)} / {num(list.creditsCharged)}
                      </td>
                      <td data-label="Created">{when(list.createdAt)}</td>
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
