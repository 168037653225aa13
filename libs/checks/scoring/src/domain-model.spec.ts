import { catchAllConfidence, type CatchAllFeatures } from './catch-all-confidence';
import { addressSignals, learnDomain, learnedPattern, MAX_QUERIES, type Evidence } from './domain-model';
import { patternFits, readPattern } from './patterns';

const likeliestPattern = (localPart: string) => readPattern(localPart)?.pattern ?? null;

const exists = (
  localPart: string,
  source: Evidence['source'] = 'verified',
  pattern: string | null = null,
): Evidence => ({ localPart, outcome: 'exists', source, pattern });
const bounced = (localPart: string): Evidence => ({ localPart, outcome: 'bounced', source: 'feedback', pattern: null });
const features = (localPart: string, domain: CatchAllFeatures['domain'] = null): CatchAllFeatures => ({
  localPart,
  role: false,
  gravatar: null,
  spf: true,
  dmarc: true,
  ageDays: 4000,
  providerAcceptsAll: false,
  domain,
});

describe('patternFits', () => {
  it('reads the pattern of a local part with the help of common given names', () => {
    expect(likeliestPattern('john.smith')).toBe('first.last');
    expect(likeliestPattern('smith.john')).toBe('last.first');
    expect(likeliestPattern('j.smith')).toBe('f.last');
    expect(likeliestPattern('john_smith')).toBe('first_last');
    expect(likeliestPattern('johnsmith')).toBe('firstlast');
    expect(likeliestPattern('johns')).toBe('firstl');
    expect(likeliestPattern('jsmith')).toBe('flast');
    expect(likeliestPattern('john')).toBe('first');
    expect(likeliestPattern('js')).toBe('fl');
    for (const none of ['x7g2k9', 'a.b.c', 'john.smith2', '']) expect(patternFits(none)).toEqual({});
  });

  it('lets a known surname settle where a given name alone would mislead', () => {
    expect(likeliestPattern('amitchell')).toBe('flast');
    expect(likeliestPattern('chenw')).toBe('lastf');
    expect(likeliestPattern('smithj')).toBe('lastf');
    expect(likeliestPattern('thomas.james')).toBe('first.last');
    expect(likeliestPattern('okeke.ngozi')).toBe('last.first');
  });
});

describe('learnDomain', () => {
  it('knows nothing without evidence: no pattern, the table shares', () => {
    const model = learnDomain([]);
    expect(model).toMatchObject({ pattern: null, confidence: 0, addresses: 0, named: 0 });
    expect(addressSignals('jsmith', model)).toEqual([]);
    expect(learnedPattern('jsmith', model)).toBeNull();
  });

  it('learns a domain pattern from verified addresses, and grows surer with more', () => {
    const three = learnDomain(['jsmith', 'mjones', 'kwest'].map((local) => exists(local)));
    const six = learnDomain(['jsmith', 'mjones', 'kwest', 'pbrown', 'tgreen', 'alee'].map((local) => exists(local)));
    expect(three.pattern).toBe('flast');
    expect(six.pattern).toBe('flast');
    expect(six.confidence).toBeGreaterThan(three.confidence);
    expect(six.addresses).toBe(6);
  });

  it('takes the finder pattern as given, and is deterministic', () => {
    const evidence = [
      exists('jdoe', 'finder', 'flast'),
      exists('maria', 'finder', 'first'),
      exists('peter', 'finder', 'first'),
    ];
    expect(learnDomain(evidence)).toEqual(learnDomain(evidence));
    expect(learnDomain(evidence).pattern).toBe('first');
  });

  it('reads the pattern from the local parts queried at the domain, before any address is known', () => {
    const queried = ['tgreen', 'asmith', 'kwest', 'pbrown', 'john.doe'];
    const model = learnDomain([], [], queried);
    expect(model).toMatchObject({ pattern: null, named: 0, queried: 5 });
    expect(learnedPattern('mjones', model)?.weight).toBeGreaterThan(0.5);
    expect(learnedPattern('mary.jones', model)?.weight).toBeLessThan(-0.5);
    // Queries are no addresses known to exist: nothing is a typo or another form of one, no name is learned.
    expect(addressSignals('tgreeen', model)).toEqual([]);
    expect(addressSignals('tgreen', model)).toEqual([]);
    expect(model.known.size).toBe(0);
    expect(model.names.has('green')).toBe(false);
  });

  it('takes no pattern from a few queries, nor from junk, role, flawed or nameless ones however many', () => {
    expect(learnedPattern('mjones', learnDomain([], [], ['tgreen', 'asmith']))).toBeNull();
    const junk = learnDomain(
      [],
      [],
      ['test1', 'asdfgh', 'qwerty', 'info', 'sales', 'x7g2k9qz', 'aaaa', 'founder', 'twice'],
    );
    expect(junk.queried).toBe(0);
    expect(learnedPattern('mjones', junk)).toBeNull();
  });

  it("a handful of made-up queries weigh less than the domain's own: the majority pattern wins", () => {
    const model = learnDomain([], [], ['anna.berg', 'tom.white', 'jsmith', 'mary.jones', 'peter.brown', 'kwest']);
    expect(learnedPattern('carl.miller', model)?.weight).toBeGreaterThan(0);
    expect(learnedPattern('cmiller', model)?.weight).toBeLessThan(0);
  });

  it('counts guesses at one person in several patterns as one query: at most one of them is the address', () => {
    const guesses = learnDomain([], [], ['nina.johansson', 'njohansson', 'johansson.nina', 'nina_johansson']);
    expect(guesses.queried).toBe(1);
    expect(learnedPattern('mjones', guesses)).toBeNull();
    expect(learnDomain([], [], ['nina.johansson', 'tom.white', 'anna.berg']).queried).toBe(3);
  });

  it('reads the newest MAX_QUERIES addresses asked, as the service keeps them, whichever of them count', () => {
    const junk = Array.from({ length: MAX_QUERIES }, (_, index) => `test${index}`);
    expect(learnDomain([], [], ['tgreen', 'asmith', 'kwest', ...junk]).queried).toBe(0);
    expect(learnDomain([], [], [...junk, 'tgreen', 'asmith', 'kwest']).queried).toBe(3);
  });

  it('reads no queries once customers reported on the domain: reports are the better word', () => {
    const queried = ['tgreen', 'asmith', 'kwest', 'pbrown'];
    const reported = learnDomain([bounced('zed.last')], [], queried);
    expect(reported.queried).toBe(0);
    expect(learnDomain([exists('mjones', 'avatar')], [], queried).queried).toBe(4);
  });

  it('counts each address once, with its latest word', () => {
    const twice = learnDomain([exists('jsmith'), exists('jsmith', 'feedback'), exists('mjones')]);
    expect(twice.addresses).toBe(2);
    expect(learnDomain([exists('jsmith'), bounced('jsmith'), exists('mjones')]).named).toBe(1);
  });

  it('does not count bounced addresses as the pattern', () => {
    const model = learnDomain([
      exists('john.smith', 'feedback'),
      bounced('jsmith'),
      bounced('mjones'),
      bounced('kwest'),
    ]);
    expect(model.pattern).toBe('first.last');
    expect(model.reports.flast.map(({ delivered }) => delivered)).toEqual([false, false, false]);
  });

  it('keeps reports on addresses with their own evidence out of the pattern rate', () => {
    const model = learnDomain([
      exists('kwest', 'avatar'),
      exists('kwest', 'feedback'),
      bounced('jsmtih'),
      bounced('mjones'),
    ]);
    expect(model.reports.flast.map(({ localPart }) => localPart)).toEqual(['mjones']);
  });
});

describe('catch-all confidence with a learned domain', () => {
  const learned = learnDomain(['jsmith', 'mjones', 'kwest', 'pbrown'].map((local) => exists(local, 'feedback')));

  it('rises for an address in the pattern that works there and falls for one that does not', () => {
    const before = catchAllConfidence(features('tgreen')).confidence;
    const after = catchAllConfidence(features('tgreen', learned));
    expect(after.confidence).toBeGreaterThan(before);
    expect(after.signals).toEqual(
      expect.arrayContaining([expect.objectContaining({ signal: 'pattern_delivery_rate' })]),
    );
    expect(
      catchAllConfidence(features('tgreen', learnDomain(['jsmith', 'mjones'].map((local) => exists(local))))).signals,
    ).toEqual(expect.arrayContaining([expect.objectContaining({ signal: 'learned_pattern' })]));
    const offPattern = catchAllConfidence(features('tom.green', learned));
    expect(offPattern.confidence).toBeLessThan(catchAllConfidence(features('tom.green')).confidence);
  });

  it('falls for a pattern whose addresses bounce', () => {
    const bouncing = learnDomain([
      exists('john.smith', 'feedback'),
      exists('mary.jones', 'feedback'),
      bounced('jsmith'),
      bounced('mjones'),
      bounced('kwest'),
    ]);
    expect(catchAllConfidence(features('pbrown', bouncing)).confidence).toBeLessThan(
      catchAllConfidence(features('pbrown')).confidence,
    );
  });

  it('follows a report about the address itself', () => {
    const reported = learnDomain([exists('odd.one', 'feedback'), bounced('other.one')]);
    expect(catchAllConfidence(features('odd.one', reported)).confidence).toBeGreaterThan(90);
    expect(catchAllConfidence(features('other.one', reported)).confidence).toBeLessThan(15);
  });

  it('leaves addresses that are no name to the static signals', () => {
    expect(catchAllConfidence(features('x7g2k9q', learned))).toEqual(catchAllConfidence(features('x7g2k9q')));
  });
});

describe('what the service has seen exist', () => {
  const signals = (localPart: string, domain: CatchAllFeatures['domain']) =>
    catchAllConfidence(features(localPart, domain)).signals.map(({ signal }) => signal);

  it('takes a known address with two letters swapped or one left out for a typo, not another person', () => {
    const model = learnDomain([exists('jsmith'), exists('gwendolyn.ostrowski', 'avatar')]);
    for (const typo of ['jsmtih', 'jsmth', 'gwendolyn.ostrowsi'])
      expect([typo, signals(typo, model)]).toEqual([typo, expect.arrayContaining(['typo_of_known'])]);
    for (const other of ['asmith', 'jsmiths', 'jsmith'])
      expect([other, signals(other, model)]).toEqual([other, expect.not.arrayContaining(['typo_of_known'])]);
  });

  it('takes a known person written in another pattern for a guess at their address, not someone else', () => {
    const model = learnDomain([exists('nina.johansson'), exists('pkowalski'), exists('ngozieze')]);
    for (const other of [
      'njohansson',
      'johansson.nina',
      'nina_johansson',
      'ninajohansson',
      'n.johansson',
      'p.kowalski',
      'kowalskip',
      'ngozi.eze',
    ]) {
      expect([other, signals(other, model)]).toEqual([other, expect.arrayContaining(['other_form_of_known'])]);
    }
    for (const someone of [
      'nina.kowalski',
      'erik.johansson',
      'nina',
      'johansson',
      'akowalski',
      'nina.johansson',
      'pkowalski',
    ]) {
      expect([someone, signals(someone, model)]).toEqual([
        someone,
        expect.not.arrayContaining(['other_form_of_known']),
      ]);
    }
    expect(catchAllConfidence(features('njohansson', model)).confidence).toBeLessThan(
      catchAllConfidence(features('njohansson', learnDomain([exists('nina.kowalski')]))).confidence,
    );
  });

  it('takes a local part one slip from a better-spelt one queried here for a typo of it, whichever came first', () => {
    // Names the lists lack (szabo, zsofia): only the spelling tells which of the two was meant.
    const queried = ['zeynep-szabo', 'zsofia.horvath', 'tgreen'];
    const model = learnDomain([], [], queried);
    for (const typo of ['zeynep-sazbo', 'zsofai.horvath'])
      expect([typo, signals(typo, model)]).toEqual([typo, expect.arrayContaining(['typo_of_queried'])]);
    const misspelt = learnDomain([], [], ['zeynep-sazbo', 'zsofai.horvath']);
    for (const meant of ['zeynep-szabo', 'zsofia.horvath'])
      expect([meant, signals(meant, misspelt)]).toEqual([meant, expect.not.arrayContaining(['typo_of_queried'])]);
    // What reads as names is no typo, however an odd spelling queried beside it reads (`ele` is likelier
    // spelt than `lee`), nor is anything once the domain was reported on.
    expect(signals('emma.lee', learnDomain([], [], ['emma.ele']))).not.toContain('typo_of_queried');
    expect(signals('zeynep-sazbo', learnDomain([bounced('zed.last')], [], queried))).not.toContain('typo_of_queried');
    expect(catchAllConfidence(features('zeynep-sazbo', model)).confidence).toBeLessThan(
      catchAllConfidence(features('zeynep-sazbo', learnDomain([], [], ['zeynep-cooper', 'zsofia.horvath', 'tgreen'])))
        .confidence,
    );
  });

  it('teaches names the lists lack, from addresses known to exist here or at other domains', () => {
    const nothing = learnDomain([]);
    const elsewhere = learnDomain([], ['gwendolyn.ostrowski', 'x.yz', 'zoltan']);
    // Parts of four letters or more of addresses with a separator: a lone word may be no name at all.
    expect(elsewhere.names).toEqual(new Set(['gwendolyn', 'ostrowski']));
    expect(learnDomain([exists('gwendolyn.ostrowski', 'feedback'), bounced('zoltan.zielke')]).names).toEqual(
      new Set(['gwendolyn', 'ostrowski']),
    );
    // A name misspelt is seen once the name is known…
    expect(signals('gwednolyn.zielke', nothing)).not.toContain('misspelt_name');
    expect(signals('gwednolyn.zielke', elsewhere)).toContain('misspelt_name');
    expect(signals('gwendolyn.zielke', elsewhere)).not.toContain('misspelt_name');
    // …a name alone reads as one, and an initial before it as flast.
    expect(signals('gwendolyn', nothing)).not.toContain('name_pattern');
    expect(signals('gwendolyn', elsewhere)).toContain('name_pattern');
    expect(patternFits('gostrowski')).not.toEqual({ flast: 1 });
    expect(patternFits('gostrowski', elsewhere.names)).toEqual({ flast: 1 });
  });
});
