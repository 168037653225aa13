import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import { ApiError, call, num, rights, type Credits, type Page, type Transaction, type Usage } from '../api';
import { save } from '../csv';
import type { Session } from '../main';
import { Pager, Problem, useLoad, when } from '../ui';

const KINDS = ['single', 'batch', 'list', 'finder', 'widget'];
const COLOURS = ['#1d4ed8', '#b45309', '#047857', '#7e22ce', '#be123c'];
const DAY = 86_400_000;
const isoDay = (time: number) => new Date(time).toISOString().slice(0, 10);

/** One value per UTC day of the range and kind, zeros where nothing happened. */
function series(rows: Usage[], from: number, days: number, measure: 'checks' | 'credits'): uPlot.AlignedData {
  const xs = Array.from({ length: days }, (_, index) => (from + index * DAY) / 1000);
  const byKind = KINDS.map((kind) =>
    xs.map((x) =>
      rows
        .filter((row) => row.kind === kind && row.date === isoDay(x * 1000))
        .reduce((sum, row) => sum + row[measure], 0),
    ),
  );
  return [xs, ...byKind];
}

function UsageChart({ session }: { session: Session }) {
  const [days, setDays] = useState(30);
  const [measure, setMeasure] = useState<'checks' | 'credits'>('checks');
  const today = Date.parse(isoDay(Date.now()));
  const from = today - (days - 1) * DAY;
  const usage = useLoad(
    () => call<{ data: Usage[] }>(session.key, 'GET', `/credits/usage?from=${isoDay(from)}&to=${isoDay(today)}`),
    [days],
  );
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!usage.data || !box.current) return;
    const width = Math.max(280, box.current.clientWidth);
    const plot = new uPlot(
      {
        width,
        height: 240,
        axes: [
          {},
          {
            label: measure,
            // Counts are whole: ticks at whole steps only, written in the reader's locale; the values drawn are
            // kept on the chart for tests and tools.
            incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 1e6],
            values: (_: uPlot, splits: number[]) => {
              const ticks = splits.filter((value) => Number.isInteger(value));
              box.current?.setAttribute('data-ticks', ticks.join(' '));
              return splits.map((value) => (Number.isInteger(value) ? num(value) : ''));
            },
          },
        ],
        scales: { x: { time: true }, y: { range: (_: uPlot, min: number, max: number) => [0, Math.max(4, max)] } },
        series: [
          {},
          ...KINDS.map((kind, index) => ({
            label: kind,
            stroke: COLOURS[index],
            width: 2,
            points: { show: days <= 30 },
          })),
        ],
      },
      series(usage.data.data, from, days, measure),
      box.current,
    );
    const fit = () => box.current && plot.setSize({ width: Math.max(280, box.current.clientWidth), height: 240 });
    addEventListener('resize', fit);
    return () => {
      removeEventListener('resize', fit);
      plot.destroy();
    };
  }, [usage.data, measure]);
  const totals = KINDS.map((kind) => ({
    kind,
    checks: usage.data?.data.filter((row) => row.kind === kind).reduce((sum, row) => sum + row.checks, 0) ?? 0,
    credits: usage.data?.data.filter((row) => row.kind === kind).reduce((sum, row) => sum + row.credits, 0) ?? 0,
  }));
  return (
    <section aria-labelledby="usage-title">
      <h2 id="usage-title">Usage per UTC day</h2>
      <div class="controls">
        <label for="usage-days">Period</label>
        <select id="usage-days" value={days} onChange={(event) => setDays(Number(event.currentTarget.value))}>
          <option value="7">Last 7 days</option>
          <option value="30">Last 30 days</option>
          <option value="90">Last 90 days</option>
        </select>
        <label for="usage-measure">Show</label>
        <select
          id="usage-measure"
          value={measure}
          onChange={(event) => setMeasure(event.currentTarget.value as 'checks' | 'credits')}
        >
          <option value="checks">Checks</option>
          <option value="credits">Credits spent</option>
        </select>
      </div>
      <Problem error={usage.error} scope={session.scope} onRetry={usage.reload} />
      <div
        ref={box}
        class="chart"
        role="img"
        aria-label={`${measure} per day and kind, last ${days} days; totals in the table below`}
      />
      <table>
        <caption>Totals over the last {days} days</caption>
        <thead>
          <tr>
            <th scope="col">Kind</th>
            <th scope="col">Checks</th>
            <th scope="col">Credits</th>
          </tr>
        </thead>
        <tbody>
          {totals.map((row) => (
            <tr key={row.kind}>
              <th scope="row">{row.kind}</th>
              <td>{num(row.checks)}</td>
              <td>{num(row.credits)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function Transactions({ session }: { session: Session }) {
  const [page, setPage] = useState(1);
  const list = useLoad(
    () => call<Page<Transaction>>(session.key, 'GET', `/credits/transactions?page=${page}&limit=20`),
    [page],
  );
  const [exportError, setExportError] = useState<unknown>(null);
  // The ledger as CSV from the service (GET /v1/credits/transactions?format=csv), fetched with this tab's credential.
  const exportCsv = async () => {
    setExportError(null);
    try {
      const response = await call<Response>(session.key, 'GET', '/credits/transactions?format=csv', { raw: true });
      // A service without the export answers the JSON page: say so rather than save JSON under a .csv name.
      if (!/text\/csv/.test(response.headers.get('Content-Type') ?? ''))
        throw new ApiError('other', 'This service cannot export the transactions as CSV yet.', response.status);
      save(await response.blob(), 'transactions.csv');
    } catch (failure) {
      setExportError(failure);
    }
  };
  return (
    <section aria-labelledby="transactions-title">
      <h2 id="transactions-title">Recent transactions</h2>
      <button type="button" id="export-transactions" onClick={() => void exportCsv()}>
        Export all transactions (CSV)
      </button>
      <Problem error={exportError} scope={session.scope} />
      <Problem error={list.error} scope={session.scope} onRetry={list.reload} />
      {list.data && (
        <>
          <div>
            <table id="transactions" class="cards">
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">What</th>
                  <th scope="col">Change</th>
                  <th scope="col">Balance after</th>
                </tr>
              </thead>
              <tbody>
                {list.data.data.map((row) => (
                  <tr key={row.id}>
                    <td data-label="When">{when(row.createdAt)}</td>
                    <td data-label="What">{row.reason}</td>
                    <td data-label="Change" class={row.delta < 0 ? 'minus' : 'plus'}>
                      {row.delta > 0 ? `+${num(row.delta)}` : num(row.delta)}
                    </td>
                    <td data-label="Balance after">{num(row.balanceAfter)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager
            label="Transaction pages"
            page={list.data.page}
            limit={list.data.limit}
            total={list.data.total}
            onPage={setPage}
          />
        </>
      )}
    </section>
  );
}

export function Overview({ session }: { session: Session }) {
  const billing = rights(session).billing;
  const credits = useLoad(() => call<Credits>(session.key, 'GET', '/credits'), []);
  return (
    <>
      <h1>Overview</h1>
      <Problem error={credits.error} scope={session.scope} onRetry={credits.reload} />
      <dl class="figures" aria-live="polite">
        <div>
          <dt>Balance</dt>
          <dd id="balance">{credits.data ? num(credits.data.balance) : '…'} credits</dd>
        </div>
        <div>
          <dt>Held by running lists</dt>
          <dd id="held">{credits.data ? num(credits.data.held) : '…'} credits</dd>
        </div>
      </dl>
      {billing && <UsageChart session={session} />}
      {billing && <Transactions session={session} />}
    </>
  );
}
