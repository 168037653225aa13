import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PATTERNS as TABLE } from '@mailguard/scoring';
import { startLab } from '../lab';
import type { Scenario } from '../lab/scenario';
import { startGatewayProcess, type RunningProcess } from '../support/processes';
import { createTestDatabase } from '../support/services';

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
 * and the calibration table (predicted band vs observed share of real mailboxes).
 */
const DOMAINS = Number(process.env.BENCH_DOMAINS ?? 40);
const STAFF = 12;
/** Made-up addresses per domain by kind; BENCH_MIX=junk:4,wrong:4,typo:2,lookalike:2 changes it. */
const MIX: Record<'junk' | 'wrong' | 'typo' | 'lookalike', number> = {
  junk: 4,
  wrong: 4,
  typo: 2,
  lookalike: 2,
  ...Object.fromEntries((process.env.BENCH_MIX ?? '').split(',').filter(Boolean).map((entry) => [entry.split(':')[0], Number(entry.split(':')[1])])),
};
/** BENCH_SEED draws another population. */
const SEED = Number(process.env.BENCH_SEED ?? 20261126);

/** Name pools: common names, and at the end of each some that the scoring's name lists do not hold (libs/scoring/src/names.ts), as real staff lists have. */
const FIRST = `james mary john patricia robert jennifer michael linda william elizabeth david barbara richard susan joseph jessica thomas sarah charles karen
  daniel nancy matthew lisa anthony betty mark sandra paul ashley steven emily andrew donna kevin michelle brian carol george amanda priya
  chen oluwaseun siobhan mateo ingrid dmitri aiko rahul fatima lars thiago anouk bartosz yara keanu solveig ifeoma radek`.split(/\s+/);
const LAST = `smith johnson williams brown jones garcia miller davis rodriguez martinez hernandez lopez gonzalez wilson anderson thomas taylor moore
  jackson martin lee perez thompson white harris sanchez clark ramirez lewis robinson walker young allen king wright scott torres nguyen hill
  flores green adams nelson baker hall rivera campbell mitchell carter roberts kowalski okafor lindqvist nakamura abernathy vukovic
  oyelaran castellanos haugland brzezinski villeneuve tamura`.split(/\s+/);

/** The pattern table's builders, by weight; two-letter addresses (`fl`) would collide at every domain. */
const PATTERNS: Array<[string, number, (f: string, l: string) => string]> = TABLE.filter(({ pattern }) => pattern !== 'fl').map(({ pattern, weight, build }) => [pattern, weight, build]);

/** mulberry32: the same population every run. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Address {
  email: string;
  domain: string;
  real: boolean;
  kind: 'staff' | 'junk' | 'wrong pattern' | 'typo' | 'lookalike';
  /** Registered with the lab's Gravatar: the one trace that sets a staff member apart from a lookalike. */
  avatar: boolean;
  /** Reported back (true) or held out (false). */
  fed: boolean;
}

function population(): { scenario: Scenario; addresses: Address[] } {
  const next = random(SEED);
  const pick = <T>(items: T[]): T => items[Math.floor(next() * items.length)];
  const weighted = () => {
    let roll = next() * PATTERNS.reduce((sum, [, weight]) => sum + weight, 0);
    for (const entry of PATTERNS) if ((roll -= entry[1]) <= 0) return entry;
    return PATTERNS[0];
  };
  const scenario: Scenario = { servers: { 'mx.catchall.bench': { catchAll: true } }, domains: { 'owner.bench': { mx: [{ host: 'mx.catchall.bench', priority: 10 }] } } };
  const addresses: Address[] = [];
  for (let d = 0; d < DOMAINS; d++) {
    const domain = `company${d}.bench`;
    const [, , build] = weighted();
    const people = new Map<string, [string, string]>();
    while (people.size < STAFF) {
      const person: [string, string] = [pick(FIRST), pick(LAST)];
      const local = build(...person);
      if (!people.has(local)) people.set(local, person);
    }
    const staff = [...people.keys()];
    const gravatars = staff.filter(() => next() < 1 / 3);
    scenario.domains![domain] = {
      mx: [{ host: 'mx.catchall.bench', priority: 10 }],
      txt: ['v=spf1 mx -all'],
      records: { _dmarc: { txt: ['v=DMARC1; p=quarantine'] } },
      registered: '2012-05-01T00:00:00Z',
      mailboxes: Object.fromEntries(staff.map((local) => [local, 'ok'])),
      gravatars,
    };
    const fakes = new Set<string>();
    const add = (local: string, kind: Address['kind']) => {
      // A valid dot-atom only: a swapped letter may not leave a dot at an end or two in a row.
      if (people.has(local) || fakes.has(local) || !/^[a-z0-9]+([._-][a-z0-9]+)*$/.test(local)) return false;
      fakes.add(local);
      addresses.push({ email: `${local}@${domain}`, domain, real: false, kind, avatar: false, fed: false });
      return true;
    };
    for (const local of staff) addresses.push({ email: `${local}@${domain}`, domain, real: true, kind: 'staff', avatar: gravatars.includes(local), fed: false });
    const junk = () => pick([`test${Math.floor(next() * 100)}`, pick(['asdfgh', 'qwerty', 'zxcvbn', 'aaaa', 'sdfsdf']), Math.floor(next() * 36 ** 7).toString(36)]);
    let wanted = MIX.junk;
    while (wanted > 0) if (add(junk(), 'junk')) wanted--;
    for (wanted = MIX.wrong; wanted > 0; ) {
      const [, , other] = pick(PATTERNS.filter(([, , candidate]) => candidate !== build));
      if (add(other(...(people.get(pick(staff)) as [string, string])), 'wrong pattern')) wanted--;
    }
    for (wanted = MIX.typo; wanted > 0; ) {
      const local = pick(staff);
      const at = Math.floor(next() * (local.length - 1));
      if (local[at] !== local[at + 1] && add(local.slice(0, at) + local[at + 1] + local[at] + local.slice(at + 2), 'typo')) wanted--;
    }
    for (wanted = MIX.lookalike; wanted > 0; ) if (add(build(pick(FIRST), pick(LAST)), 'lookalike')) wanted--;
  }
  // Half of each domain's addresses are reported back, the other half held out; checks arrive in no particular order.
  for (const address of addresses) address.fed = next() < 0.5;
  for (let i = addresses.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [addresses[i], addresses[j]] = [addresses[j], addresses[i]];
  }
  return { scenario, addresses };
}

/** The probability that a random real address scores above a random made-up one (ties count half). */
function auc(scored: Array<{ real: boolean; confidence: number }>): number {
  const real = scored.filter((item) => item.real).map((item) => item.confidence);
  const fake = scored.filter((item) => !item.real).map((item) => item.confidence);
  let wins = 0;
  for (const r of real) for (const f of fake) wins += r > f ? 1 : r === f ? 0.5 : 0;
  return wins / (real.length * fake.length);
}

function calibration(scored: Array<{ real: boolean; confidence: number }>): string[] {
  const lines = ['    band      n   mean predicted   observed real'];
  for (let low = 0; low < 100; low += 20) {
    const band = scored.filter((item) => item.confidence >= low && (item.confidence < low + 20 || (low === 80 && item.confidence <= 100)));
    if (band.length === 0) continue;
    const mean = band.reduce((sum, item) => sum + item.confidence, 0) / band.length;
    const observed = (100 * band.filter((item) => item.real).length) / band.length;
    lines.push(`    ${String(low).padStart(2)}–${low + 20 === 100 ? 100 : low + 19}`.padEnd(12) + `${String(band.length).padStart(4)}   ${mean.toFixed(0).padStart(8)}%        ${observed.toFixed(0).padStart(8)}%`);
  }
  return lines;
}

async function main(): Promise<void> {
  const { scenario, addresses } = population();
  const lab = await startLab(scenario);
  const database = await createTestDatabase();
  let gateway: RunningProcess | null = null;
  try {
    const env = { ...lab.env, DATABASE_URL: database.url, SMTP_HELO_NAME: 'bench.mailguard.test', RATE_LIMIT_PER_MINUTE: '1000000', CACHE_TTL_SECONDS: '0' };
    gateway = await startGatewayProcess(env, mkdtempSync(join(tmpdir(), 'mailguard-bench-')));
    const url = gateway.url;
    const call = async <T>(method: string, path: string, key: string | null, body?: unknown): Promise<T> => {
      const response = await fetch(`${url}${path}`, { method, headers: { 'content-type': 'application/json', ...(key ? { 'X-API-Key': key } : {}) }, body: body === undefined ? undefined : JSON.stringify(body) });
      if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
      return response.status === 204 ? (undefined as T) : ((await response.json()) as T);
    };
    const signup = await call<{ apiKey: string; account: { id: string } }>('POST', '/v1/accounts', null, { email: 'bench@owner.bench' });
    await database.setBalance(signup.account.id, 1_000_000);
    const check = async (batch: Address[]) => {
      const scored: Array<{ real: boolean; confidence: number; kind: string; email: string; signals: string }> = [];
      for (let i = 0; i < batch.length; i += 100) {
        const slice = batch.slice(i, i + 100);
        const { results } = await call<{ results: Array<{ confidence: number | null; smtp: { catchAll: boolean }; checks: { catchAll: { signals?: Array<{ signal: string; weight: number }> } } }> }>('POST', '/v1/email-validation/batch', signup.apiKey, {
          emails: slice.map((a) => a.email),
        });
        results.forEach((result, index) => {
          if (!result.smtp.catchAll || result.confidence === null) throw new Error(`${slice[index].email} was not concluded as catch-all`);
          const signals = (result.checks.catchAll.signals ?? []).map(({ signal, weight }) => `${signal} ${weight}`).join(', ');
          scored.push({ real: slice[index].real, confidence: result.confidence, kind: slice[index].kind, email: slice[index].email, signals });
        });
      }
      return scored;
    };

    const before = await check(addresses);
    const heldOut = addresses.filter((address) => !address.fed);
    const heldOutBefore = before.filter((_, index) => !addresses[index].fed);
    for (const address of addresses.filter((a) => a.fed)) {
      await call('POST', '/v1/email-validation/feedback', signup.apiKey, { email: address.email, outcome: address.real ? 'delivered' : 'bounced' });
    }
    const after = await check(heldOut);
    // BENCH_DUMP=file: every answer with its signals and the truth, to see what moved it.
    if (process.env.BENCH_DUMP) writeFileSync(process.env.BENCH_DUMP, JSON.stringify({ before, after }));
    // Mean confidence per kind, and for made-up kinds the AUC of staff against that kind alone.
    const byKind = (scored: Array<{ real: boolean; confidence: number; kind: string }>) =>
      [...new Set(scored.map((item) => item.kind))].map((kind) => {
        const items = scored.filter((item) => item.kind === kind);
        const mean = (items.reduce((sum, item) => sum + item.confidence, 0) / items.length).toFixed(0);
        return kind === 'staff' ? `${kind} ${mean}` : `${kind} ${mean} (AUC ${auc([...scored.filter((item) => item.real), ...items]).toFixed(2)})`;
      });
    const real = addresses.filter((a) => a.real).length;
    // The best any score can do: avatar-holders first, staff without one tied with lookalikes, then the rest.
    const best = (batch: Address[]) => auc(batch.map((address) => ({ real: address.real, confidence: address.avatar ? 2 : address.kind === 'staff' || address.kind === 'lookalike' ? 1 : 0 })));
    const traceable = <T extends { kind: string }>(scored: T[]) => scored.filter((item) => item.kind !== 'lookalike');
    const row = (label: string, scored: Array<{ real: boolean; confidence: number; kind: string }>, batch: Address[], target: string) =>
      `  ${label.padEnd(38)}${auc(scored).toFixed(3).padStart(7)}${best(batch).toFixed(3).padStart(10)}${auc(traceable(scored)).toFixed(3).padStart(13)}   ${target}`;
    process.stdout.write(
      [
        `scoring bench: ${addresses.length} addresses at ${DOMAINS} catch-all lab domains (${real} real mailboxes, ${addresses.length - real} made up: ${Object.entries(MIX).map(([kind, n]) => `${kind} ${n}`).join(', ')} per domain), ${heldOut.length} held out`,
        `  ${''.padEnd(38)}    all   best any   without lookalikes`,
        row('AUC without feedback (all)', before, addresses, '(target ≥ 0.85)'),
        row('AUC without feedback (held-out half)', heldOutBefore, heldOut, ''),
        row('AUC after feedback   (held-out half)', after, heldOut, '(target ≥ 0.95)'),
        `  mean confidence by kind, before: ${byKind(before).join(', ')}`,
        `  mean confidence by kind, after (held out): ${byKind(after).join(', ')}`,
        '  calibration without feedback (all):',
        ...calibration(before),
        '  calibration after feedback (held-out half):',
        ...calibration(after),
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
