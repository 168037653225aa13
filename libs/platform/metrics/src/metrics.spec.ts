import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { isFullGc, Metrics } from './metrics';

const MB = 1024 * 1024;

describe('mailguard_checks_total', () => {
  it('counts concluded checks by status and subStatus, "none" standing for a null subStatus', async () => {
    const metrics = new Metrics('scoring-worker');
    metrics.countCheck({ status: 'risky', subStatus: 'greylisted' });
    metrics.countCheck({ status: 'risky', subStatus: 'greylisted' });
    metrics.countCheck({ status: 'valid', subStatus: null });
    const samples = (await metrics.checks.get()).values.map(({ labels, value }) => ({ ...labels, value }));
    expect(samples).toEqual([
      { status: 'risky', sub_status: 'greylisted', value: 2 },
      { status: 'valid', sub_status: 'none', value: 1 },
    ]);
    const text = await metrics.text();
    expect(text).toContain('# TYPE mailguard_checks_total counter');
    expect(text).toContain('mailguard_checks_total{status="valid",sub_status="none",service="scoring-worker"} 1');
  });

  it('is exposed, with its type, before any check is counted (dashboards and alerts name it from the start)', async () => {
    expect(await new Metrics('gateway').text()).toMatch(
      /^# HELP mailguard_checks_total .+\n# TYPE mailguard_checks_total counter$/m,
    );
  });
});

describe('kept SMTP sessions', () => {
  it('are read from the pool when scraped: how many are kept now, and how many probes began on one', async () => {
    const metrics = new Metrics('smtp-worker');
    const pool = { size: 2, reused: 5 };
    metrics.watchKeptSessions(pool);
    let text = await metrics.text();
    expect(text).toContain('mailguard_smtp_sessions_kept{service="smtp-worker"} 2');
    expect(text).toContain('# TYPE mailguard_smtp_sessions_reused_total counter');
    expect(text).toContain('mailguard_smtp_sessions_reused_total{service="smtp-worker"} 5');
    Object.assign(pool, { size: 0, reused: 7 });
    text = await metrics.text();
    expect(text).toContain('mailguard_smtp_sessions_kept{service="smtp-worker"} 0');
    expect(text).toContain('mailguard_smtp_sessions_reused_total{service="smtp-worker"} 7');
  });
});

describe('mailguard_heap_after_full_gc_bytes', () => {
  it('is the heap in use right after the last full GC: it moves at full GCs only, with what they kept', async () => {
    setFlagsFromString('--expose-gc');
    const fullGc = runInNewContext('gc') as () => void;
    const metrics = new Metrics('scoring-worker');
    /** A full GC, once its entry has been handed to the observers (a moment after it ran). */
    const collected = () =>
      new Promise<void>((resolve) => {
        const observer = new PerformanceObserver((entries) => {
          if (!entries.getEntries().some(isFullGc)) return;
          observer.disconnect();
          resolve();
        });
        observer.observe({ entryTypes: ['gc'] });
        fullGc();
      });
    const afterGc = async () => {
      const [sample] = (await metrics.heapAfterGc.get()).values;
      return sample?.value ?? 0;
    };
    // Two in a row: the first also collects what the test's own start left behind.
    await collected();
    await collected();
    const before = await afterGc();
    expect(before).toBeGreaterThan(0);
    // Made since, not counted: no full GC has run (a small allocation, which starts none).
    const garbage = Array.from({ length: 1_000 }, (_, i) => `garbage ${i}`);
    expect(getHeapStatistics().used_heap_size).toBeGreaterThan(before);
    expect(await afterGc()).toBe(before);
    expect(garbage).toHaveLength(1_000);
    // 40 MB of doubles kept across the next full GC: it moves, and counts them. (Not "before + 40 MB":
    // in a worker that ran other suites, what a full GC leaves unswept or flushes varies by more.)
    const kept = Array.from({ length: 5_000_000 }, (_, i) => i * 1.5);
    await collected();
    const after = await afterGc();
    expect(after).not.toBe(before);
    expect(after).toBeGreaterThan(38 * MB);
    expect(kept).toHaveLength(5_000_000);
  }, 30_000);
});
