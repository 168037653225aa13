import { hasMisspeltName, readsAsNames, unusualLetterPairs } from './names';

describe('readsAsNames', () => {
  it('reads the corporate patterns made of common names', () => {
    for (const local of [
      'john.smith',
      'j.smith',
      'smith.j',
      'jsmith',
      'smithj',
      'johns',
      'johnsmith',
      'smith',
      'kowalski',
      'priya.sharma',
      'ngozi-okeke',
    ]) {
      expect([local, readsAsNames(local)]).toEqual([local, true]);
    }
    for (const local of ['info', 'sales', 'x7g2k9', 'john.smith.jr', 'jmaes.smith', 'qwerty'])
      expect([local, readsAsNames(local)]).toEqual([local, false]);
  });
});

describe('hasMisspeltName', () => {
  it('catches two neighbouring letters swapped in a given name or a surname, whatever the pattern', () => {
    for (const local of [
      'jmaes.smith',
      'james.smtih',
      'j.smtih',
      'jsmtih',
      'jamessmtih',
      'mar.kgarcia',
      'kign',
      'danile',
      'l.irvera',
      'smtihj',
      'ifeoma.martinze',
      'jmaes.okwuosa',
    ]) {
      expect([local, hasMisspeltName(local)]).toEqual([local, true]);
    }
  });

  it('leaves alone what already reads as names, what no swap makes a name, and short local parts', () => {
    for (const local of [
      'james.smith',
      'asmith',
      'bsmith',
      'amitchell',
      'oluwaseun.adeyemi',
      'przemyslaw',
      'info',
      'support',
      'ele',
      'lai',
      'qwerty',
      'mail',
      'psam',
    ]) {
      expect([local, hasMisspeltName(local)]).toEqual([local, false]);
    }
  });
});

describe('hasMisspeltName: a letter left out', () => {
  it('of a name of seven letters or more, in one part of two', () => {
    for (const local of ['mia.fairweater', 'g.otrowski', 'c.marovic', 'rodriuez.ana'])
      expect([local, hasMisspeltName(local, new Set(['fairweather', 'ostrowski', 'markovic']))]).toEqual([local, true]);
  });

  it('not one of a doubled letter, nor of a short name: those are spellings of their own', () => {
    for (const local of ['erik.johanson', 'mathew.jones', 'philip.brown', 'kaya.smith', 'ana.varga', 'l.redd'])
      expect([local, hasMisspeltName(local)]).toEqual([local, false]);
  });
});

describe('unusualLetterPairs', () => {
  it('counts letter pairs that no common name has', () => {
    expect(unusualLetterPairs('james')).toEqual({ unusual: 0, pairs: 4 });
    expect(unusualLetterPairs('xqkz').unusual).toBeGreaterThanOrEqual(2);
    expect(unusualLetterPairs('a1b')).toEqual({ unusual: 0, pairs: 0 });
  });
});
