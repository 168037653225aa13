import { PATTERNS as TABLE } from '@mailguard/scoring';

/**
 * The seeded catch-all populations the scoring is measured and calibrated on. Each lab domain is a
 * company with its own address pattern and real staff mailboxes (some with an avatar); against them
 * stand made-up addresses of the kinds people type into forms: junk, staff under a wrong pattern,
 * typos of staff addresses, and lookalikes (people who do not work there, in the company's pattern).
 *
 * Three populations, each from its own name pools, pattern weights and domain mix, so that what is
 * fitted on one is judged on others:
 * - `bench`: what `npm run bench:scoring` has always checked (its numbers stay comparable);
 * - `second`: held out from everything: other names (two in five unknown to the scoring's lists),
 *   patterns the table ranks low made common, domains without DMARC or only months old, staff
 *   and avatar shares that vary, other junk; the made-up kinds in the bench's proportions, so that
 *   its AUC and ceiling compare with the bench's;
 * - `fitting`: the population the calibration map is fitted on (libs/checks/scoring/src/calibration.ts):
 *   names of its own, half of them unknown to the lists, typos of both kinds (a quarter drop a letter),
 *   four times the domains; never judged on.
 *
 * In every population a fifth of the made-up addresses are lookalikes (mix 4:4:4:3): real-looking
 * names in the domain's own pattern, as the service meets them. Nothing but outside evidence tells
 * them from staff, which caps any score's AUC (scoring-report.ts `ceiling`, computed per drawn population).
 *
 * The seeds: FITTING_SEEDS draw the populations the maps are fitted on, HELD_OUT the ones they are
 * judged on (libs/checks/scoring/src/calibration.spec.ts); no seed is in both.
 */
export type Kind = 'staff' | 'junk' | 'wrong pattern' | 'typo' | 'lookalike';

export interface Address {
  email: string;
  localPart: string;
  domain: string;
  real: boolean;
  kind: Kind;
  /** Registered with the lab's Gravatar: the one trace that sets a staff member apart from a lookalike. */
  avatar: boolean;
  /** Reported back after the first round (true) or held out (false). */
  fed: boolean;
}

export interface DomainFacts {
  spf: boolean;
  dmarc: boolean;
  ageDays: number;
}

export interface Population {
  name: string;
  addresses: Address[];
  /** Per domain name. */
  domains: Record<string, DomainFacts & { staff: string[]; avatars: string[] }>;
  mix: Record<MadeUp, number>;
}

type MadeUp = 'junk' | 'wrong' | 'typo' | 'lookalike';
type Build = (first: string, last: string) => string;
type Next = () => number;

interface Spec {
  name: string;
  seed: number;
  domains: number;
  first: string[];
  last: string[];
  patterns: Array<[string, number]>;
  mix: Record<MadeUp, number>;
  /** Staff count, avatar share and domain facts; the bench's draw nothing (its population stays as it was). */
  company(next: Next): DomainFacts & { staff: number; avatarShare: number };
  junk(next: Next, pick: <T>(items: T[]) => T): string;
  /** Share of typos that drop a letter instead of swapping two neighbours. */
  dropShare: number;
}

const words = (text: string) => text.split(/\s+/).filter(Boolean);
const BUILD = new Map<string, Build>(TABLE.map(({ pattern, build }) => [pattern, build]));
/** The pattern table's builders, by its weights; two-letter addresses (`fl`) would collide at every domain. */
const TABLE_WEIGHTS: Array<[string, number]> = TABLE.filter(({ pattern }) => pattern !== 'fl').map(
  ({ pattern, weight }) => [pattern, weight],
);

/** mulberry32: the same population every run. */
export function random(seed: number): Next {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Common names, and at the end of each pool some the scoring's name lists do not hold (libs/checks/scoring/src/names.ts). */
const BENCH: Spec = {
  name: 'bench',
  seed: 20261126,
  domains: 40,
  first:
    words(`james mary john patricia robert jennifer michael linda william elizabeth david barbara richard susan joseph jessica
    thomas sarah charles karen daniel nancy matthew lisa anthony betty mark sandra paul ashley steven emily andrew donna kevin
    michelle brian carol george amanda priya chen oluwaseun siobhan mateo ingrid dmitri aiko rahul fatima lars thiago anouk bartosz
    yara keanu solveig ifeoma radek`),
  last: words(`smith johnson williams brown jones garcia miller davis rodriguez martinez hernandez lopez gonzalez wilson anderson
    thomas taylor moore jackson martin lee perez thompson white harris sanchez clark ramirez lewis robinson walker young allen king
    wright scott torres nguyen hill flores green adams nelson baker hall rivera campbell mitchell carter roberts kowalski okafor
    lindqvist nakamura abernathy vukovic oyelaran castellanos haugland brzezinski villeneuve tamura`),
  patterns: TABLE_WEIGHTS,
  mix: { junk: 4, wrong: 4, typo: 4, lookalike: 3 },
  company: () => ({ staff: 12, avatarShare: 1 / 3, spf: true, dmarc: true, ageDays: 5000 }),
  junk: (next, pick) =>
    pick([
      `test${Math.floor(next() * 100)}`,
      pick(['asdfgh', 'qwerty', 'zxcvbn', 'aaaa', 'sdfsdf']),
      Math.floor(next() * 36 ** 7).toString(36),
    ]),
  dropShare: 0,
};

/** A company's facts drawn: most run their mail properly and are old, some are not. */
function variedCompany(next: Next): DomainFacts & { staff: number; avatarShare: number } {
  const auth = next();
  const age = next();
  return {
    staff: 8 + Math.floor(next() * 9),
    avatarShare: 0.15 + next() * 0.3,
    spf: auth < 0.9,
    dmarc: auth < 0.65,
    ageDays: age < 0.1 ? 120 : age < 0.3 ? 900 : 4000,
  };
}

const SECOND: Spec = {
  name: 'second',
  seed: 7130519,
  domains: 40,
  first:
    words(`aaron alice carlos claire emma hannah ivan julia lucas maria nina omar pablo rachel sofia victor zoe hans kenji meera
    ngozi aoife magnus agnieszka gregory teresa
    bogdan zsofia emre thuy goran ilse jurgen kaito leila tariq yusra zeynep wiremu anahera kalani tevita farida ebru oksana
    dalibor`),
  last: words(`schmidt rossi dubois nowak ivanov johansson murphy sharma wang sato park tanaka kelly cooper evans fischer moreno
    bailey russo larsen gupta
    horvath kovacs yilmaz demir kaya celik szabo toth varga petrovic jovanovic mahlangu dlamini nkosi okonkwo adeyemi ferreira
    oliveira pereira kiplagat`),
  patterns: [
    ['first.last', 0.14],
    ['flast', 0.1],
    ['first', 0.08],
    ['firstlast', 0.1],
    ['f.last', 0.1],
    ['first_last', 0.08],
    ['last', 0.06],
    ['firstl', 0.08],
    ['last.first', 0.1],
    ['first-last', 0.08],
    ['lastf', 0.08],
  ],
  mix: { junk: 4, wrong: 4, typo: 4, lookalike: 3 },
  company: variedCompany,
  junk: (next, pick) =>
    pick([
      `${pick(['user', 'abc', 'xyz', 'demo', 'sample'])}${Math.floor(next() * 1000)}`,
      pick(['qazwsx', 'zxcvbnm', 'hjkl', 'xxxx', 'nospam', 'noname', 'fake.name']),
      Math.floor(next() * 36 ** (5 + Math.floor(next() * 4))).toString(36),
    ]),
  dropShare: 0,
};

const FITTING: Spec = {
  name: 'fitting',
  seed: 5550123,
  domains: 160,
  first:
    words(`amy ben chris diana eric frank grace henry jack kate leon mia noah oscar paula ryan sam tom ruth simon helen
    fred anna jose
    aurelio bronwyn cosimo dagny eero fenna gwendolyn hallvard isolde jarrah kasimir liesel malak nuno orla quentin rosalind
    seren tamsin ulla vesna yannick zoltan`),
  last: words(`turner hughes wood price hunt weber costa bakker jensen reddy zhao yamada choi walsh ward gray ellis stone
    fox shaw mills ford
    achterberg blomqvist cardoso dragomir esterhuizen fairweather gudmundsson hakimi iwasaki jablonski kristiansen lombardo
    markovic nieminen ostrowski quispe rautio sandoval thorvaldsen uchida vandermeer whitlock zielke`),
  patterns: [
    ['first.last', 0.24],
    ['flast', 0.14],
    ['first', 0.1],
    ['firstlast', 0.09],
    ['f.last', 0.08],
    ['first_last', 0.06],
    ['last', 0.05],
    ['firstl', 0.06],
    ['last.first', 0.06],
    ['first-last', 0.05],
    ['lastf', 0.05],
  ],
  mix: { junk: 4, wrong: 4, typo: 4, lookalike: 3 },
  company: variedCompany,
  junk: (next, pick) =>
    pick([
      `${pick(['test', 'temp', 'foo', 'me', 'mail'])}${Math.floor(next() * 100)}`,
      pick(['asdf', 'qwertz', 'aaaaa', 'abcdef', 'dummy', 'none']),
      Math.floor(next() * 36 ** (6 + Math.floor(next() * 3))).toString(36),
    ]),
  dropShare: 0.25,
};

export const SPECS = { bench: BENCH, second: SECOND, fitting: FITTING } as const;
export type PopulationName = keyof typeof SPECS;

/** The `fitting` population's draws the calibration maps are fitted on. */
export const FITTING_SEEDS = [FITTING.seed, 5550124] as const;
/** Populations held out from the fit and from tuning, each drawn with its own seed. */
export const HELD_OUT: ReadonlyArray<readonly [PopulationName, number]> = [
  ['bench', BENCH.seed],
  ['bench', 20261127],
  ['second', SECOND.seed],
  ['second', 7130520],
  ['second', 7130521],
];

/** Overrides for the bench: BENCH_SEED, BENCH_DOMAINS, BENCH_MIX=junk:4,wrong:4,typo:4,lookalike:3. */
export interface Overrides {
  seed?: number;
  domains?: number;
  mix?: Partial<Record<MadeUp, number>>;
}

export function population(name: PopulationName, overrides: Overrides = {}): Population {
  const spec = SPECS[name];
  const mix = { ...spec.mix, ...overrides.mix };
  const next = random(overrides.seed ?? spec.seed);
  const pick = <T>(items: T[]): T => items[Math.floor(next() * items.length)];
  const patterns = spec.patterns.map(([pattern, weight]) => [pattern, weight, BUILD.get(pattern) as Build] as const);
  const weighted = () => {
    let roll = next() * patterns.reduce((sum, [, weight]) => sum + weight, 0);
    for (const entry of patterns) if ((roll -= entry[1]) <= 0) return entry;
    return patterns[0];
  };
  const addresses: Address[] = [];
  const domains: Population['domains'] = {};
  for (let d = 0; d < (overrides.domains ?? spec.domains); d++) {
    const domain = `company${d}.${spec.name === 'bench' ? 'bench' : `${spec.name}.bench`}`;
    const [, , build] = weighted();
    const { staff: size, avatarShare, ...facts } = spec.company(next);
    const people = new Map<string, [string, string]>();
    while (people.size < size) {
      const person: [string, string] = [pick(spec.first), pick(spec.last)];
      const local = build(...person);
      if (!people.has(local)) people.set(local, person);
    }
    const staff = [...people.keys()];
    const avatars = staff.filter(() => next() < avatarShare);
    domains[domain] = { ...facts, staff, avatars };
    const fakes = new Set<string>();
    const add = (local: string, kind: Kind) => {
      // A valid dot-atom only: a swapped letter may not leave a dot at an end or two in a row.
      if (people.has(local) || fakes.has(local) || !/^[a-z0-9]+([._-][a-z0-9]+)*$/.test(local)) return false;
      fakes.add(local);
      addresses.push({
        email: `${local}@${domain}`,
        localPart: local,
        domain,
        real: false,
        kind,
        avatar: false,
        fed: false,
      });
      return true;
    };
    for (const local of staff) {
      addresses.push({
        email: `${local}@${domain}`,
        localPart: local,
        domain,
        real: true,
        kind: 'staff',
        avatar: avatars.includes(local),
        fed: false,
      });
    }
    let wanted = mix.junk;
    while (wanted > 0) if (add(spec.junk(next, pick), 'junk')) wanted--;
    for (wanted = mix.wrong; wanted > 0;) {
      const [, , other] = pick(patterns.filter(([, , candidate]) => candidate !== build));
      if (add(other(...(people.get(pick(staff)) as [string, string])), 'wrong pattern')) wanted--;
    }
    for (wanted = mix.typo; wanted > 0;) {
      const local = pick(staff);
      const at = Math.floor(next() * (local.length - 1));
      if (spec.dropShare > 0 && next() < spec.dropShare) {
        if (local.length > 4 && add(local.slice(0, at + 1) + local.slice(at + 2), 'typo')) wanted--;
      } else if (
        local[at] !== local[at + 1] &&
        add(local.slice(0, at) + local[at + 1] + local[at] + local.slice(at + 2), 'typo')
      )
        wanted--;
    }
    for (wanted = mix.lookalike; wanted > 0;) if (add(build(pick(spec.first), pick(spec.last)), 'lookalike')) wanted--;
  }
  // Half of each domain's addresses are reported back, the other half held out; checks arrive in no particular order.
  for (const address of addresses) address.fed = next() < 0.5;
  for (let i = addresses.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [addresses[i], addresses[j]] = [addresses[j], addresses[i]];
  }
  return { name: spec.name, addresses, domains, mix };
}
