import { Metrics } from './metrics';

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
