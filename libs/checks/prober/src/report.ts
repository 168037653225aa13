import type { EgressBlock, EgressPool } from '@mailguard/smtp';
import { isProviderId } from '@mailguard/config';

/** docs/production.md. */
export type CheckStatus = 'pass' | 'warn' | 'fail' | 'skipped';

export interface DoctorCheck {
  name: string;
  status: CheckStatus;
  detail: string;
  /** What to do, for a check that warns or fails. */
  fix: string | null;
}

export interface EgressReport {
  id: string;
  publicIp: string | null;
  checks: DoctorCheck[];
}

export interface DoctorReport {
  /** Nothing failed. */
  ok: boolean;
  checkedAt: string;
  egress: EgressReport[];
}

export type ProberStatus = 'ok' | 'degraded' | 'blocked';

/** Blocks shown per egress: a listed address may be refused by thousands of small domains. */
const BLOCKS_SHOWN = 20;

/** The `prober` section of `/health/ready`: the last self-check and what the probes meet. */
export interface ProberReadiness {
  status: ProberStatus;
  /** Why it is not ok, in a sentence; null when it is. */
  reason: string | null;
  /** When the last self-check ran; null before the first one finished. */
  checkedAt: string | null;
  egress: Array<{
    id: string;
    publicIp: string | null;
    status: ProberStatus;
    /** Checks of the last self-check that failed or warned. */
    failing: string[];
    warnings: string[];
    /** Providers (or MX domains) that refuse it now, and until when: the newest BLOCKS_SHOWN. */
    blocked: Array<{ provider: string; reason: string; since: string; until: string }>;
    /** How many refuse it now in all. */
    blockedCount: number;
  }>;
}

/** Keys of blocks that a known provider's name stands for; the rest are MX domains, "other" in metrics. */
export function providerLabel(key: string): string {
  return isProviderId(key) ? key : 'other';
}

/**
 * Readiness from the last report and the blocks in force. `blocked`: some provider has no usable
 * egress left (its addresses are answered `unknown` / `sender_blocked`), or no egress can reach
 * port 25 at all; `degraded`: an egress fails a check or is refused somewhere, while the mail it
 * would carry still has a way out.
 */
export function proberReadiness(report: DoctorReport | null, pool: EgressPool): ProberReadiness {
  const blocks = pool.blocks();
  const egress = pool.egresses.map((item) => {
    const reported = report?.egress.find((entry) => entry.id === item.id);
    const checks = reported?.checks ?? [];
    const failing = checks.filter((check) => check.status === 'fail').map((check) => check.name);
    const warnings = checks.filter((check) => check.status === 'warn').map((check) => check.name);
    const own = blocks.filter((block) => block.egress === item.id);
    const status: ProberStatus = failing.includes('port25')
      ? 'blocked'
      : failing.length > 0 || own.length > 0
        ? 'degraded'
        : 'ok';
    return {
      id: item.id,
      publicIp: reported?.publicIp ?? null,
      status,
      failing,
      warnings,
      blocked: own
        .sort((a, b) => b.since - a.since)
        .slice(0, BLOCKS_SHOWN)
        .map((block: EgressBlock) => ({
          provider: block.key,
          reason: block.reason,
          since: new Date(block.since).toISOString(),
          until: new Date(block.until).toISOString(),
        })),
      blockedCount: own.length,
    };
  });
  const dark = [...new Set(blocks.map((block) => block.key))].filter((key) => pool.usable(key).length === 0);
  const darkProviders = dark.filter((key) => providerLabel(key) !== 'other');
  const reasons: string[] = [];
  let status: ProberStatus = 'ok';
  if (egress.every((item) => item.status === 'blocked')) {
    status = 'blocked';
    reasons.push('no egress reaches port 25 (see the self-check: npx mailguard doctor)');
  }
  if (darkProviders.length > 0) {
    status = 'blocked';
    for (const key of darkProviders) {
      const why = blocks.find((block) => block.key === key)?.reason ?? '';
      reasons.push(`no usable egress for ${key}: every egress is refused (${why})`);
    }
  }
  if (status === 'ok' && egress.some((item) => item.status !== 'ok')) status = 'degraded';
  if (status !== 'blocked') {
    for (const item of egress) {
      if (item.failing.length > 0) reasons.push(`${item.id} fails ${item.failing.join(', ')}`);
      if (item.blockedCount > 0)
        reasons.push(
          `${item.id} is refused by ${someOf(
            item.blocked.map((block) => block.provider),
            item.blockedCount,
          )}`,
        );
    }
  }
  // A domain left without an egress has blocks, so the status is degraded already.
  const darkDomains = dark.filter((key) => providerLabel(key) === 'other');
  if (darkDomains.length > 0 && status !== 'blocked')
    reasons.push(`no usable egress for ${someOf(darkDomains, darkDomains.length)}`);
  return {
    status,
    reason: reasons.length > 0 ? reasons.join('; ') : null,
    checkedAt: report?.checkedAt ?? null,
    egress,
  };
}

/** The first five of `names`, and how many more there are of `total`. */
function someOf(names: string[], total: number): string {
  const shown = names.slice(0, 5);
  return `${shown.join(', ')}${total > shown.length ? ` and ${total - shown.length} more` : ''}`;
}

const MARK: Record<CheckStatus, string> = { pass: 'PASS', warn: 'WARN', fail: 'FAIL', skipped: 'SKIP' };

/** The report as an operator reads it in one screen. */
export function reportText(report: DoctorReport): string {
  const lines = [`MailGuard prober self-check, ${report.checkedAt}`];
  for (const egress of report.egress) {
    lines.push('', `egress ${egress.id}${egress.publicIp ? ` (public address ${egress.publicIp})` : ''}`);
    const width = Math.max(...egress.checks.map((check) => check.name.length));
    for (const check of egress.checks) {
      lines.push(`  ${MARK[check.status]}  ${check.name.padEnd(width)}  ${check.detail}`);
      if (check.fix) lines.push(`        ${' '.repeat(width)}  fix: ${check.fix}`);
    }
  }
  const all = report.egress.flatMap((egress) => egress.checks);
  const failed = all.filter((check) => check.status === 'fail').length;
  const warned = all.filter((check) => check.status === 'warn').length;
  lines.push(
    '',
    report.ok
      ? `Ready: nothing failed${warned ? ` (${warned} warning${warned === 1 ? '' : 's'})` : ''}.`
      : `Not ready: ${failed} check${failed === 1 ? '' : 's'} failed${warned ? `, ${warned} warned` : ''}; mail servers will refuse or ignore this prober until they are fixed.`,
  );
  return `${lines.join('\n')}\n`;
}
