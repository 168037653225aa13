import { catchAllConfidence } from './catch-all-confidence';

const score = (localPart: string) =>
  catchAllConfidence({
    localPart,
    role: false,
    gravatar: null,
    spf: true,
    dmarc: true,
    ageDays: 4000,
    providerAcceptsAll: false,
  });
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
