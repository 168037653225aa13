import { catchAllConfidence } from './catch-all-confidence';
import { learnDomain } from './domain-model';

const features = (localPart: string) => ({
  localPart,
  role: false,
  gravatar: null,
  spf: true,
  dmarc: true,
  ageDays: 4000,
  providerAcceptsAll: false,
});
const score = (localPart: string) => catchAllConfidence(features(localPart));
const signals = (localPart: string) => score(localPart).signals.map(({ signal }) => signal);

describe('catchAllConfidence: what the address itself says', () => {
  it('takes generated strings and keyboard noise for random, not names with a number after them', () => {
    for (const local of ['xqkypu1', 'mm3aak0', '7rkpkkq', 'b0eahlg', 'zjowquc', 'a8f3e9c2d1'])
      expect([local, signals(local)]).toEqual([local, expect.arrayContaining(['random_looking'])]);
    for (const local of ['jsmith85', 'john.smith2', 'priya', 'oluwaseun', 'kowalski', 'siobhan'])
      expect([local, signals(local)]).toEqual([local, expect.not.arrayContaining(['random_looking'])]);
  });

  it('takes a short word that is no name with a number after it for a handle, not a staff address', () => {
    for (const local of ['me58', 'mail8', 'xy123'])
      expect([local, signals(local)]).toEqual([local, expect.arrayContaining(['random_looking'])]);
    for (const local of ['kate7', 'lee7', 'john1', 'jsmith85'])
      expect([local, signals(local)]).toEqual([local, expect.not.arrayContaining(['random_looking'])]);
  });

  it('reads role words as words: neither noise nor misspelt names', () => {
    for (const local of ['ftp', 'gdpr', 'system', 'mail', 'uucp'])
      expect([local, signals(local)]).toEqual([local, expect.not.arrayContaining(['random_looking', 'misspelt_name'])]);
  });

  it('marks a misspelt name, and lowers the confidence for it', () => {
    expect(signals('jmaes.smith')).toContain('misspelt_name');
    expect(signals('james.smith')).not.toContain('misspelt_name');
    expect(score('jsmtih').confidence).toBeLessThan(score('jsmith').confidence);
  });

  it('recognises names with an initial or joined, with the surname list', () => {
    for (const local of ['jsmith', 'smithj', 'kowalski', 'johnsmith'])
      expect([local, signals(local)]).toEqual([local, expect.arrayContaining(['name_pattern'])]);
    expect(signals('info')).not.toContain('name_pattern');
  });
});

describe('catchAllConfidence: an address with an avatar', () => {
  const withAvatar = (localPart: string, domain: ReturnType<typeof learnDomain> | null = null) =>
    catchAllConfidence({ ...features(localPart), gravatar: true, domain });

  it('is known to exist at its first check as at every later one, where its domain stores it', () => {
    // A name the lists lack, at a domain nothing is known of: its avatar alone speaks for it.
    const first = withAvatar('tkiplagat');
    const later = withAvatar(
      'tkiplagat',
      learnDomain([{ localPart: 'tkiplagat', outcome: 'exists', source: 'avatar', pattern: null }]),
    );
    expect(first.confidence).toBe(later.confidence);
    expect(first.confidence).toBeGreaterThanOrEqual(95);
  });

  it("ranks above any guess without one, even where the domain's pattern is learned", () => {
    const learned = learnDomain(
      ['anna.weber', 'tom.hughes', 'kate.price'].map((localPart) => ({
        localPart,
        outcome: 'exists' as const,
        source: 'avatar' as const,
        pattern: null,
      })),
    );
    const guess = catchAllConfidence({ ...features('john.smith'), domain: learned });
    expect(withAvatar('tkiplagat').confidence).toBeGreaterThan(guess.confidence);
  });
});
