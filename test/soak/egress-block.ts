import type { ProberReadiness } from '@mailguard/prober';
import type { Lab } from '../lab';
import { apiClient } from '../support/api-client';
import { until } from './cycle';
import type { SoakService } from './service';
import { BLOCK_DOMAIN, BLOCK_HOST, BLOCK_MAILBOXES, BLOCK_PROVIDER, EGRESS_IPS, SOAK_SETTINGS } from './world';

/**
 * A block that appears and clears mid-run, at BLOCK_DOMAIN (whose MX is named like Google's, so the
 * block's key is the provider `google`): (1) the MX refuses the first egress: checks are still
 * answered right, through the second, and readiness shows the first blocked for `google`; (2) it
 * refuses both: answers are unknown/sender_blocked and free, readiness says `blocked`; (3) it
 * accepts both again: once the back-offs end, checks are answered right through the first egress
 * and readiness shows no block for `google`. Then the cycle's own assertions follow: slots back
 * to 0 and a never-asked mailbox at every strict domain, BLOCK_DOMAIN included, answered definitely.
 */

const [FIRST, SECOND] = EGRESS_IPS.map((ip) => `local:${ip}`);
const BLOCK_MS = Number(SOAK_SETTINGS.PROBER_BLOCK_SECONDS) * 1000;
/** The longest back-off (8× the first), and time for the gateway to see a block (it reads Redis every second). */
const LONGEST_BACKOFF_MS = 8 * BLOCK_MS + 2_000;

interface Answer {
  reachable?: string;
  reason?: string;
  subStatus?: string | null;
  cached?: boolean;
}

export interface EpisodeOutcome {
  failures: string[];
  /** One line of figures: how long each phase took, and the sessions each egress opened at BLOCK_HOST. */
  line: string;
}

/** The blocks readiness shows for BLOCK_PROVIDER, by egress id. */
function blockedEgresses(prober: ProberReadiness): string[] {
  return prober.egress
    .filter((egress) => egress.blocked.some((block) => block.provider === BLOCK_PROVIDER))
    .map((egress) => egress.id);
}

export async function egressBlockEpisode(service: SoakService, lab: Lab, tag: string): Promise<EpisodeOutcome> {
  const api = apiClient(service.url);
  const server = lab.smtp(BLOCK_HOST);
  const failures: string[] = [];
  const phases: string[] = [];
  let mailbox = 0;
  const known = () => {
    if (mailbox >= BLOCK_MAILBOXES) throw new Error(`the episode asks more than ${BLOCK_MAILBOXES} known mailboxes`);
    return `egress${mailbox++}@${BLOCK_DOMAIN}`;
  };
  let stranger = 0;
  /** Never asked before, so never cached: an unknown user when the MX answers. */
  const unknownUser = () => `nobody.${tag}.${stranger++}@${BLOCK_DOMAIN}`;
  const sessions = () => EGRESS_IPS.map((ip) => server.stats.byClient[ip]?.sessions ?? 0);

  // An account of its own: its balance moves with the episode's checks alone.
  const signup = await api<{ apiKey: string; account: { id: string } }>('POST', '/v1/accounts', {
    body: { email: `egress.${tag}@catchall0.soak` },
  });
  if (signup.status !== 201) return { failures: [`episode sign-up answered ${signup.status}`], line: '' };
  const key = signup.body.apiKey;
  await service.database.setBalance(signup.body.account.id, 1_000);
  const balance = async () => (await api<{ balance: number }>('GET', '/v1/credits', { key })).body.balance;
  const check = async (email: string) =>
    (await api<Answer>('GET', `/v1/email-validation/${encodeURIComponent(email)}`, { key })).body;
  /** A known mailbox is accepted and an unknown one rejected, definitely and not from the cache. */
  const answeredRight = async (when: string) => {
    const asked = [
      [known(), 'accepted_email'],
      [known(), 'accepted_email'],
      [unknownUser(), 'rejected_email'],
    ] as const;
    const answers = await Promise.all(asked.map(([email]) => check(email)));
    answers.forEach((answer, index) => {
      const [email, reason] = asked[index];
      if (answer.reachable === 'unknown' || answer.cached || answer.reason !== reason)
        failures.push(
          `${when}: ${email} answered ${answer.reason}/${answer.subStatus ?? '-'}, reachable ${answer.reachable}${answer.cached ? ', cached' : ''} (expected ${reason})`,
        );
    });
  };
  const timed = async (name: string, phase: () => Promise<void>) => {
    const started = performance.now();
    const before = sessions();
    await phase();
    const opened = sessions().map((count, index) => count - before[index]);
    phases.push(`${name} ${((performance.now() - started) / 1000).toFixed(1)} s (sessions ${opened.join('/')})`);
    return opened;
  };

  try {
    // (1) The first egress is refused at RCPT: the probes that meet it go on through the second.
    await timed('first refused', async () => {
      server.behave({ clients: { [EGRESS_IPS[0]]: { blockSender: 'rcpt' } } });
      await answeredRight(`${FIRST} refused`);
      const shown = await until(async () => {
        const prober = await service.prober();
        const blocked = blockedEgresses(prober);
        if (blocked.length === 1 && blocked[0] === FIRST && prober.status !== 'blocked') return null;
        return `readiness shows ${BLOCK_PROVIDER} blocking ${blocked.join(', ') || 'no egress'}, status ${prober.status}`;
      }, BLOCK_MS);
      if (shown) failures.push(`${FIRST} refused: ${shown} (expected ${FIRST} only, status not blocked)`);
    });

    // (2) Both are refused: every check is unknown/sender_blocked and free, until readiness says `blocked`.
    await timed('both refused', async () => {
      server.behave({ clients: Object.fromEntries(EGRESS_IPS.map((ip) => [ip, { blockSender: 'rcpt' }])) });
      const before = await balance();
      const dark = await until(async () => {
        const answer = await check(unknownUser());
        if (answer.reachable !== 'unknown' || answer.subStatus !== 'sender_blocked')
          failures.push(
            `both refused: answered ${answer.reason}/${answer.subStatus ?? '-'}, reachable ${answer.reachable}`,
          );
        const prober = await service.prober();
        if (prober.status === 'blocked' && prober.reason?.includes(BLOCK_PROVIDER)) return null;
        return `readiness ${prober.status} (${prober.reason ?? 'no reason'})`;
      }, LONGEST_BACKOFF_MS);
      if (dark) failures.push(`both refused: ${dark}, not blocked for ${BLOCK_PROVIDER}`);
      const after = await balance();
      if (after !== before) failures.push(`both refused: unknown answers cost ${before - after} credits`);
    });

    // (3) Both accepted again: once the back-offs end (a time), checks go out through the first egress.
    await timed('cleared', async () => {
      server.behave({ clients: {} });
      const ended = await until(async () => {
        const blocked = blockedEgresses(await service.prober());
        return blocked.length === 0 ? null : `readiness still shows ${BLOCK_PROVIDER} blocking ${blocked.join(', ')}`;
      }, LONGEST_BACKOFF_MS);
      if (ended) failures.push(`cleared: ${ended}`);
    });
    const opened = await timed('answered', () => answeredRight('cleared'));
    if (opened[0] === 0 || opened[1] !== 0)
      failures.push(`cleared: sessions by egress ${opened.join('/')}, expected through ${FIRST} alone`);
    const prober = await service.prober();
    if (blockedEgresses(prober).length > 0 || prober.status === 'blocked')
      failures.push(`cleared: after a probe got through, readiness says ${prober.status} (${prober.reason})`);
  } finally {
    server.behave({ clients: {} });
  }
  return {
    failures,
    line: `egress block at ${BLOCK_DOMAIN} (${BLOCK_PROVIDER}; sessions ${FIRST}/${SECOND}): ${phases.join(', ')}`,
  };
}
