import { foldName, parseName, registrableDomain } from './names';
import { learnDomain, PATTERNS } from '@mailguard/scoring';
import { candidates } from './patterns';

describe('names', () => {
  it.each([
    ['José', 'jose'],
    ["O'Brien", 'obrien'],
    ['García-Márquez', 'garcia marquez'],
    ['J.R.R.', 'jrr'],
    ['Łukasz Øster', 'lukasz oster'],
    ['Straße', 'strasse'],
  ])('folds %s to %s', (input, folded) => {
    expect(foldName(input)).toBe(folded);
  });

  it('splits a full name into a given name and the whole surname, particles included', () => {
    expect(parseName({ fullName: 'Jan van der Berg' })).toEqual({ first: 'jan', last: ['van', 'der', 'berg'] });
    expect(parseName({ firstName: 'María José', lastName: 'García-Márquez' })).toEqual({
      first: 'maria',
      last: ['garcia', 'marquez'],
    });
    expect(parseName({ fullName: 'Cher' })).toBeNull();
    expect(parseName({ firstName: 'John' })).toBeNull();
  });

  it.each([
    ['acme.com', 'acme.com'],
    ['www.acme.com', 'acme.com'],
    ['https://www.shop.example.co.uk/team?x=1', 'example.co.uk'],
    ['HTTP://Acme.COM', 'acme.com'],
    ['not a domain', null],
    ['', null],
  ])('reduces %s to %s', (input, domain) => {
    expect(registrableDomain(input)).toBe(domain);
  });
});

describe('candidates', () => {
  it('follows the pattern table, compound surnames joined, without repeats', () => {
    const list = candidates({ first: 'maria', last: ['garcia', 'marquez'] });
    expect(list.slice(0, 4).map((candidate) => candidate.localPart)).toEqual([
      'maria.garciamarquez',
      'mgarciamarquez',
      'maria',
      'mariagarciamarquez',
    ]);
    expect(new Set(list.map((candidate) => candidate.localPart)).size).toBe(list.length);
    expect(list.map((candidate) => candidate.pattern)).toEqual(PATTERNS.map((pattern) => pattern.pattern));
  });

  it("puts the domain's learned pattern first", () => {
    const model = learnDomain(
      ['jdoe', 'asmith', 'bwayne'].map((localPart) => ({
        localPart,
        outcome: 'exists' as const,
        source: 'feedback' as const,
        pattern: null,
      })),
    );
    const list = candidates({ first: 'carl', last: ['miller'] }, model);
    expect(list[0]).toMatchObject({ localPart: 'cmiller', pattern: 'flast' });
    expect(list[0].weight).toBeCloseTo(model.shares.flast);
    expect(list.map((candidate) => candidate.weight)).toEqual(
      [...list.map((candidate) => candidate.weight)].sort((a, b) => b - a),
    );
  });

  it('weights fall in table order', () => {
    const weights = PATTERNS.map((pattern) => pattern.weight);
    expect([...weights].sort((a, b) => b - a)).toEqual(weights);
  });
});
