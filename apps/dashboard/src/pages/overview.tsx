import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import { call, type Credits, type Page, type Transaction, type Usage } from '../api';
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
        scales: { x: { time: true } },
        axes: [{}, { label: measure }],
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
              <td>{row.checks}</td>
              <td>{row.credits}</td>
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
  return (
    <section aria-labelledby="transactions-title">
      <h2 id="transactions-title">Recent transactions</h2>
      <Problem error={list.error} scope={session.scope} onRetry={list.reload} />
      {list.data && (
        <>
          <div class="scroll">
            <table id="transactions">
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
                    <td>{when(row.createdAt)}</td>
                    <td>{row.reason}</td>
                    <td class={row.delta < 0 ? 'minus' : 'plus'}>{row.delta > 0 ? `+${row.delta}` : row.delta}</td>
                    <td>{row.balanceAfter}</td>
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
  const credits = useLoad(() => call<Credits>(session.key, 'GET', '/credits'), []);
  return (
    <>
      <h1>Overview</h1>
      <Problem error={credits.error} scope={session.scope} onRetry={credits.reload} />
      <dl class="figures" aria-live="polite">
        <div>
          <dt>Balance</dt>
          <dd id="balance">{credits.data ? credits.data.balance.toLocaleString() : '…'} credits</dd>
        </div>
        <div>
          <dt>Held by running lists</dt>
          <dd id="held">{credits.data ? credits.data.held.toLocaleString() : '…'} credits</dd>
        </div>
      </dl>
      <UsageChart session={session} />
      <Transactions session={session} />
    </>
  );
}
