import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLab } from '../lab';
import type { Scenario } from '../lab/scenario';
import { startGatewayProcess, type RunningProcess } from '../support/processes';
import { createTestDatabase } from '../support/services';
import { population, SPECS, type Address, type Population, type PopulationName } from './scoring-populations';
import { auc, ceiling, reliability, reliabilityTable, withoutLookalikes } from './scoring-report';

/**
 * `npm run bench:scoring`: how well `confidence` tells real mailboxes from made-up addresses at
 * catch-all domains, where SMTP cannot. The lab holds DOMAINS catch-all companies, each with its
 * own address pattern (drawn by the pattern table's weights) and STAFF real mailboxes, a third of
 * them with an avatar. Against them stand made-up addresses of the kinds people type into forms:
 * junk (test1, asdfgh, random letters), staff under a wrong pattern, typos of staff addresses; and
 * lookalikes: names of people who do not work there, written in the company's pattern. Nothing
 * observable tells a lookalike from a staff member without an avatar, so the bench prints the AUC
 * with and without them, and the best AUC any score could reach (avatar-holders first, then staff
 * and lookalikes tied, then everything else) beside it.
 *
 * Every address is checked through the running gateway (real Postgres, CACHE_TTL_SECONDS=0);
 * then half of each domain's addresses are reported delivered or bounced (as the truth says) and
 * the other half, held out, is checked again. Prints the AUC of `confidence` against the truth
 * and the reliability table (confidence band vs observed share of real mailboxes).
 *
 * BENCH_POPULATION=second checks the population held out from all tuning and from the calibration
 * fit (test/bench/scoring-populations.ts); BENCH_SEED, BENCH_DOMAINS and
 * BENCH_MIX=junk:4,wrong:4,typo:4,lookalike:3 draw others.
 */
const POPULATION = (process.env.BENCH_POPULATION ?? 'bench') as PopulationName;
if (!(POPULATION in SPECS)) throw new Error(`BENCH_POPULATION must be one of ${Object.keys(SPECS).join(', ')}`);
const MIX = Object.fromEntries(
  (process.env.BENCH_MIX ?? '')
    .split(',')
    .filter(Boolean)
    .map((entry) => [entry.split(':')[0], Number(entry.split(':')[1])]),
);

/** The lab: one catch-all server, each company's DNS (SPF, DMARC, registration date as drawn), its mailboxes and avatars. */
function scenarioOf(drawn: Population): Scenario {
  const scenario: Scenario = {
    servers: { 'mx.catchall.bench': { catchAll: true } },
    domains: { 'owner.bench': { mx: [{ host: 'mx.catchall.bench', priority: 10 }] } },
  };
  for (const [domain, facts] of Object.entries(drawn.domains)) {
    scenario.domains![domain] = {
      mx: [{ host: 'mx.catchall.bench', priority: 10 }],
      ...(facts.spf ? { txt: ['v=spf1 mx -all'] } : {}),
      ...(facts.dmarc ? { records: { _dmarc: { txt: ['v=DMARC1; p=quarantine'] } } } : {}),
      registered: new Date(Date.now() - facts.ageDays * 86_400_000).toISOString(),
      mailboxes: Object.fromEntries(facts.staff.map((local) => [local, 'ok'])),
      gravatars: facts.avatars,
    };
  }
  return scenario;
}

async function main(): Promise<void> {
  const drawn = population(POPULATION, {
    ...(process.env.BENCH_SEED ? { seed: Number(process.env.BENCH_SEED) } : {}),
    ...(process.env.BENCH_DOMAINS ? { domains: Number(process.env.BENCH_DOMAINS) } : {}),
    mix: MIX,
  });
  const addresses = drawn.addresses;
  const lab = await startLab(scenarioOf(drawn));
  const database = await createTestDatabase();
  let gateway: RunningProcess | null = null;
  try {
    const env = {
      ...lab.env,
      DATABASE_URL: database.url,
      SMTP_HELO_NAME: 'bench.mailguard.test',
      RATE_LIMIT_PER_MINUTE: '1000000',
      CACHE_TTL_SECONDS: '0',
    };
    gateway = await startGatewayProcess(env, mkdtempSync(join(tmpdir(), 'mailguard-bench-')));
    const url = gateway.url;
    const call = async <T>(method: string, path: string, key: string | null, body?: unknown): Promise<T> => {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: { 'content-type': 'application/json', ...(key ? { 'X-API-Key': key } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
      return response.status === 204 ? (undefined as T) : ((await response.json()) as T);
    };
    const signup = await call<{ apiKey: string; account: { id: string } }>('POST', '/v1/accounts', null, {
      email: 'bench@owner.bench',
    });
    await database.setBalance(signup.account.id, 1_000_000);
    const check = async (batch: Address[]) => {
      const scored: Array<{ real: boolean; confidence: number; kind: string; email: string; signals: string }> = [];
      for (let i = 0; i < batch.length; i += 100) {
        const slice = batch.slice(i, i + 100);
        const { results } = await call<{
          results: Array<{
            confidence: number | null;
            smtp: { catchAll: boolean };
            checks: { catchAll: { signals?: Array<{ signal: string; weight: number }> } };
          }>;
        }>('POST', '/v1/email-validation/batch', signup.apiKey, {
          emails: slice.map((a) => a.email),
        });
        results.forEach((result, index) => {
          if (!result.smtp.catchAll || result.confidence === null)
            throw new Error(`${slice[index].email} was not concluded as catch-all`);
          const signals = (result.checks.catchAll.signals ?? [])
            .map(({ signal, weight }) => `${signal} ${weight}`)
            .join(', ');
          scored.push({
            real: slice[index].real,
            confidence: result.confidence,
            kind: slice[index].kind,
            email: slice[index].email,
            signals,
          });
        });
      }
      return scored;
    };

    const before = await check(addresses);
    const heldOut = addresses.filter((address) => !address.fed);
    const heldOutBefore = before.filter((_, index) => !addresses[index].fed);
    for (const address of addresses.filter((a) => a.fed)) {
      await call('POST', '/v1/email-validation/feedback', signup.apiKey, {
        email: address.email,
        outcome: address.real ? 'delivered' : 'bounced',
      });
    }
    const after = await check(heldOut);
    // BENCH_DUMP=file: every answer with its signals and the truth, to see what moved it.
    if (process.env.BENCH_DUMP) writeFileSync(process.env.BENCH_DUMP, JSON.stringify({ before, after }));
    // Mean confidence per kind, and for made-up kinds the AUC of staff against that kind alone.
    const byKind = (scored: Array<{ real: boolean; confidence: number; kind: string }>) =>
      [...new Set(scored.map((item) => item.kind))].map((kind) => {
        const items = scored.filter((item) => item.kind === kind);
        const mean = (items.reduce((sum, item) => sum + item.confidence, 0) / items.length).toFixed(0);
        return kind === 'staff'
          ? `${kind} ${mean}`
          : `${kind} ${mean} (AUC ${auc([...scored.filter((item) => item.real), ...items]).toFixed(2)})`;
      });
    const real = addresses.filter((a) => a.real).length;
    const outcomes = (scored: Array<{ real: boolean; confidence: number; kind: string }>, batch: Address[]) =>
      scored.map((item, index) => ({ ...item, kind: batch[index].kind, avatar: batch[index].avatar }));
    const all = outcomes(before, addresses);
    const row = (label: string, scored: typeof all, target: string) =>
      `  ${label.padEnd(38)}${auc(scored).toFixed(3).padStart(7)}${ceiling(scored).toFixed(3).padStart(10)}${auc(withoutLookalikes(scored)).toFixed(3).padStart(13)}   ${target}`;
    process.stdout.write(
      [
        `scoring bench (${drawn.name}): ${addresses.length} addresses at ${Object.keys(drawn.domains).length} catch-all lab domains (${real} real mailboxes, ${addresses.length - real} made up: ${Object.entries(
          drawn.mix,
        )
          .map(([kind, n]) => `${kind} ${n}`)
          .join(', ')} per domain), ${heldOut.length} held out`,
        `  ${''.padEnd(38)}    all   best any   without lookalikes`,
        row('AUC without feedback (all)', all, '(target ≥ 0.90)'),
        row('AUC without feedback (held-out half)', outcomes(heldOutBefore, heldOut), ''),
        row('AUC after feedback   (held-out half)', outcomes(after, heldOut), '(target ≥ 0.90)'),
        `  mean confidence by kind, before: ${byKind(before).join(', ')}`,
        `  mean confidence by kind, after (held out): ${byKind(after).join(', ')}`,
        '  reliability without feedback (all):',
        ...reliabilityTable(reliability(before)),
        '  reliability after feedback (held-out half):',
        ...reliabilityTable(reliability(after)),
      ].join('\n') + '\n',
    );
  } finally {
    await gateway?.stop();
    await lab.stop();
    await database.drop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
