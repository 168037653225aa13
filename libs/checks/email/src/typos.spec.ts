import DISPOSABLE_LIST from 'disposable-email-domains';
import { blacklist as mailcheckerList } from 'mailchecker';
import { Random } from '../../../../test/fuzz/random';
import { BIG_PROVIDERS } from './big-providers';
import { isDisposableDomain, isFreeDomain } from './providers';
import { correctionOf, typoOf } from './typos';

const DISPOSABLES = [...new Set([...mailcheckerList(), ...DISPOSABLE_LIST])];

describe('typos of big providers', () => {
  it('are named by the disposable lists (typo-squats), which is why the rule is needed', () => {
    for (const typo of ['gmial.com', 'hotmial.com', 'outlok.com']) expect(DISPOSABLES).toContain(typo);
  });

  it('are sure slips of the provider, neither disposable nor free, though the lists name them', () => {
    for (const [typo, provider] of [
      ['gmial.com', 'gmail.com'],
      ['hotmial.com', 'hotmail.com'],
      ['outlok.com', 'outlook.com'],
      ['yaho.com', 'yahoo.com'],
      ['gmaill.com', 'gmail.com'],
      ['gnail.com', 'gmail.com'],
      ['hotmial.con', 'hotmail.com'],
    ]) {
      expect({ typo, found: typoOf(typo), disposable: isDisposableDomain(typo), free: isFreeDomain(typo) }).toEqual({
        typo,
        found: { provider, sure: true },
        disposable: false,
        free: false,
      });
    }
  });

  it('include slips in the ending and a left-out dot', () => {
    for (const [typo, provider] of [
      ['gmail.co', 'gmail.com'],
      ['gmail.con', 'gmail.com'],
      ['gmail.cmo', 'gmail.com'],
      ['gmail.om', 'gmail.com'],
      ['hotmail.cm', 'hotmail.com'],
      ['libero.ti', 'libero.it'],
      ['hotmail.couk', 'hotmail.co.uk'],
      ['gmailcom', 'gmail.com'],
    ]) {
      expect({ typo, found: typoOf(typo), free: isFreeDomain(typo) }).toEqual({
        typo,
        found: { provider, sure: true },
        free: false,
      });
    }
  });

  it('never turn a real throwaway service into someone else’s mailbox', () => {
    expect(isDisposableDomain('yopmail.com')).toBe(true);
    expect(typoOf('yopmail.com')).toBeNull();
    for (const domain of ['mailinator.com', 'guerrillamail.com', '10minutemail.com']) {
      expect(isDisposableDomain(domain)).toBe(true);
      expect(typoOf(domain)).toBeNull();
    }
  });

  it('leave providers and unrelated domains alone', () => {
    for (const domain of ['gmail.com', 'ymail.com', 'acme.test', 'catchall.test', 'company.io', 'email.com'])
      expect({ domain, found: typoOf(domain) }).toEqual({ domain, found: null });
  });

  it('are only loose from a short name or to another country’s ending, which real domains spell', () => {
    for (const [domain, provider] of [
      ['love.com', 'live.com'],
      ['al.com', 'aol.com'],
      ['sol.com', 'aol.com'],
      ['aok.com', 'aol.com'],
      ['nail.com', 'mail.com'],
      ['one.pl', 'onet.pl'],
      ['wev.de', 'web.de'],
      ['live.se', 'live.de'],
      ['hotmail.no', 'hotmail.nl'],
    ])
      expect({ domain, found: typoOf(domain) }).toEqual({ domain, found: { provider, sure: false } });
  });

  it('are corrected when sure, and when loose only for a domain known to take no mail', () => {
    const [sure, loose] = [typoOf('gmial.com'), typoOf('aok.com')];
    expect([true, false, null].map((takesMail) => correctionOf(sure!, takesMail))).toEqual([
      'gmail.com',
      'gmail.com',
      'gmail.com',
    ]);
    expect([true, false, null].map((takesMail) => correctionOf(loose!, takesMail))).toEqual([null, 'aol.com', null]);
  });

  it('are not guessed when two providers are equally near, and go to the nearer one otherwise', () => {
    expect(typoOf('yahoo.se')).toBeNull();
    expect(typoOf('ymial.com')).toEqual({ provider: 'ymail.com', sure: true });
    expect(typoOf('hotmail.fe')).toBeNull();
  });
});

/** A seeded generator's next float: the same population for the same seed. */
function prng(seed: number): () => number {
  const random = new Random(seed);
  return () => random.next();
}

const KEYBOARD = ['qwertyuiop', 'asdfghjkl', 'zxcvbnm'];

/** Keys beside `key` in its own row: the slips people make most (the rule under test also knows the rows above and below). */
function besideKeys(key: string): string[] {
  for (const row of KEYBOARD) {
    const at = row.indexOf(key);
    if (at >= 0) return [row[at - 1], row[at + 1]].filter((k): k is string => k !== undefined);
  }
  return [];
}

type TypoKind = 'swap' | 'near_key' | 'left_out' | 'doubled' | 'extra_key' | 'ending' | 'dotless';
const KINDS: TypoKind[] = ['swap', 'near_key', 'left_out', 'doubled', 'extra_key', 'ending', 'dotless'];

/** How people mistype an ending: what the issue measured (`.co`, `.cm`, `.con`, `.cmo`, `.om`, `.ti`) and kin. */
function endingTypos(ending: string): string[] {
  const last = ending.slice(ending.lastIndexOf('.') + 1);
  const head = ending.slice(0, ending.length - last.length);
  const variants = new Set<string>();
  for (let at = 0; at < last.length; at++) {
    variants.add(last.slice(0, at) + last.slice(at + 1));
    if (at + 1 < last.length) variants.add(last.slice(0, at) + last[at + 1] + last[at] + last.slice(at + 2));
    for (const key of besideKeys(last[at])) variants.add(last.slice(0, at) + key + last.slice(at + 1));
  }
  variants.add(last + last[last.length - 1]);
  return [...variants].filter((v) => v.length >= 2 && v !== last).map((v) => head + v);
}

/** One typo of `domain` of the given kind, or null when that kind cannot apply. */
function typoOfKind(domain: string, kind: TypoKind, random: () => number): string | null {
  const dot = domain.indexOf('.');
  const name = domain.slice(0, dot);
  const ending = domain.slice(dot + 1);
  const pick = <T>(items: T[]): T | null => (items.length ? items[Math.floor(random() * items.length)] : null);
  const at = Math.floor(random() * name.length);
  const withName = (typed: string | null) => (typed === null || typed === name ? null : `${typed}.${ending}`);
  switch (kind) {
    case 'swap':
      return at + 1 < name.length ? withName(name.slice(0, at) + name[at + 1] + name[at] + name.slice(at + 2)) : null;
    case 'near_key': {
      const key = pick(besideKeys(name[at]));
      return key ? withName(name.slice(0, at) + key + name.slice(at + 1)) : null;
    }
    case 'left_out':
      return name.length > 2 ? withName(name.slice(0, at) + name.slice(at + 1)) : null;
    case 'doubled':
      return withName(name.slice(0, at) + name[at] + name.slice(at));
    case 'extra_key': {
      const key = pick(besideKeys(name[at]));
      return key ? withName(name.slice(0, at + 1) + key + name.slice(at + 1)) : null;
    }
    case 'ending': {
      const typed = pick(endingTypos(ending));
      return typed ? `${name}.${typed}` : null;
    }
    case 'dotless':
      return name + ending;
  }
}

/**
 * How often a provider's customers appear, roughly as in an international consumer list: Gmail
 * about a third, Yahoo, Hotmail and Outlook the next third, every other provider a sliver.
 */
const SHARES: Record<string, number> = {
  'gmail.com': 120,
  'yahoo.com': 40,
  'hotmail.com': 35,
  'outlook.com': 25,
  'icloud.com': 12,
  'aol.com': 8,
  'live.com': 8,
  'msn.com': 4,
};

const SYLLABLES = 'ka ro mi ne tal ber son lux vid tek ora pan dor fin gra hel ix cor mar lin'.split(' ');
const COMPANY_ENDINGS = ['com', 'com', 'com', 'net', 'io', 'de', 'co.uk', 'fr', 'it', 'nl', 'org'];
/** Real domains one slip from a provider's name that are not typos of it (chosen while writing the rule: not held out). */
const NEAR_BUT_REAL = ['email.com', 'al.com', 'love.com', 'life.com', 'nail.com', 'yahoo.se', 'live.se', 'hotmail.no'];

interface Member {
  domain: string;
  /** The provider a typo should be corrected to (any of them when one typo reads as several). */
  provider: Set<string> | null;
  disposable: boolean;
  /** Whether the domain takes mail (MX, or A for want of one): what DNS tells the engine. */
  receivesMail: boolean;
}

const PROVIDERS = [...BIG_PROVIDERS];

/** Every typo the generator could make, with the providers it could come from: how list domains are judged. */
const TYPO_SPACE = new Map<string, Set<string>>();
for (const provider of PROVIDERS) {
  const name = provider.slice(0, provider.indexOf('.'));
  for (const kind of KINDS) {
    // Enough draws to see every position and key of a provider's name.
    const random = prng(name.length * 7919 + KINDS.indexOf(kind));
    for (let draw = 0; draw < 60; draw++) {
      const typo = typoOfKind(provider, kind, random);
      if (typo && !BIG_PROVIDERS.has(typo)) TYPO_SPACE.set(typo, (TYPO_SPACE.get(typo) ?? new Set()).add(provider));
    }
  }
}

const DISPOSABLE_SET = new Set(DISPOSABLES);
/** Throwaway domains that hold a provider's name: where typo-squats and real services meet. */
const NEAR_PROVIDERS = DISPOSABLES.filter((domain) =>
  PROVIDERS.some((provider) => domain.includes(provider.slice(0, provider.indexOf('.')))),
);

function population(seed: number): Member[] {
  const random = prng(seed);
  const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)];
  const weighted = PROVIDERS.flatMap((provider) => Array<string>(SHARES[provider] ?? 1).fill(provider));
  const members: Member[] = [];
  for (let i = 0; i < 600; i++)
    members.push({ domain: pick(weighted), provider: null, disposable: false, receivesMail: true });
  // An assumption, not a measure: a quarter of typo domains are registered typo-squats that take mail.
  const SQUATTED = 0.25;
  for (let i = 0; i < 1400; i++) {
    const provider = pick(weighted);
    const typo = typoOfKind(provider, KINDS[i % KINDS.length], random);
    if (typo && !BIG_PROVIDERS.has(typo) && !['yopmail.com'].includes(typo))
      members.push({
        domain: typo,
        provider: TYPO_SPACE.get(typo) ?? new Set([provider]),
        disposable: false,
        receivesMail: random() < SQUATTED,
      });
  }
  // Throwaway services, a quarter of them close to a provider: the typo-squats among them are typos.
  for (let i = 0; i < 1000; i++) {
    const domain = pick(i % 4 === 0 ? NEAR_PROVIDERS : DISPOSABLES);
    const provider = TYPO_SPACE.get(domain) ?? null;
    members.push({ domain, provider, disposable: provider === null, receivesMail: true });
  }
  members.push({ domain: 'yopmail.com', provider: null, disposable: true, receivesMail: true });
  for (let i = 0; i < 1000; i++) {
    const length = 2 + Math.floor(random() * 2);
    const name = Array.from({ length }, () => pick(SYLLABLES)).join('');
    const domain = `${name}.${pick(COMPANY_ENDINGS)}`;
    if (!DISPOSABLE_SET.has(domain) && !BIG_PROVIDERS.has(domain))
      members.push({ domain, provider: null, disposable: false, receivesMail: true });
  }
  for (const domain of NEAR_BUT_REAL) members.push({ domain, provider: null, disposable: false, receivesMail: true });
  return members;
}

/** The provider the engine suggests for a member: a sure typo, or a loose one of a domain that takes no mail. */
function suggestionFor(member: Member): string | null {
  const typo = typoOf(member.domain);
  return typo && correctionOf(typo, member.receivesMail);
}

function measure(members: Member[]) {
  let suggested = 0;
  let rightSuggestions = 0;
  let flagged = 0;
  let rightlyFlagged = 0;
  const typos = members.filter((member) => member.provider !== null);
  for (const member of members) {
    const provider = suggestionFor(member);
    if (provider !== null) {
      suggested++;
      if (member.provider?.has(provider)) rightSuggestions++;
    }
    if (isDisposableDomain(member.domain)) {
      flagged++;
      if (member.disposable) rightlyFlagged++;
    }
  }
  const recalled = typos.filter((member) => member.provider?.has(suggestionFor(member) ?? '')).length;
  return {
    suggestionPrecision: rightSuggestions / suggested,
    suggestionRecall: recalled / typos.length,
    disposablePrecision: rightlyFlagged / flagged,
  };
}

describe('a seeded population of addresses: providers, their typos, throwaway services and companies', () => {
  // Seeds 1 to 5 were run while the rule and the population were written; 11 to 13 are held out, as
  // are 21 to 23, first run once the loose slips were final. What is still missed is mostly typo
  // domains that take mail (the assumed typo-squats) with a loose slip, and two providers even.
  it.each([1, 2, 3, 4, 5, 11, 12, 13, 21, 22, 23])(
    'seed %i: suggestion precision and recall, and disposable precision, 0.95 or more',
    (seed) => {
      const figures = measure(population(seed));
      process.stdout.write(`seed ${seed}: ${JSON.stringify(figures)}\n`);
      expect(figures.suggestionPrecision).toBeGreaterThanOrEqual(0.95);
      expect(figures.suggestionRecall).toBeGreaterThanOrEqual(0.95);
      expect(figures.disposablePrecision).toBeGreaterThanOrEqual(0.95);
    },
  );
});
