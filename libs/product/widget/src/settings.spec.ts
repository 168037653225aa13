import { AppError } from '@mailguard/errors';
import { BUILT_IN_DEFAULTS, normalizeOrigin, parseDefaults, parseOrigins } from './settings';

describe('widget settings validation', () => {
  it('normalises origins and refuses what is not one', () => {
    expect(normalizeOrigin(' HTTPS://Shop.Example:443/ ')).toBe('https://shop.example');
    expect(normalizeOrigin('http://localhost:8080')).toBe('http://localhost:8080');
    for (const bad of [
      'shop.example',
      'ftp://shop.example',
      'https://shop.example/path',
      'https://shop.example/?q=1',
      'https://user@shop.example',
      'javascript:alert(1)',
    ]) {
      expect(normalizeOrigin(bad)).toBeNull();
    }
    expect(parseOrigins(['https://a.example', 'https://A.example/'])).toEqual(['https://a.example']);
    expect(() => parseOrigins('https://a.example')).toThrow(AppError);
    expect(() => parseOrigins(Array.from({ length: 101 }, (_, i) => `https://s${i}.example`))).toThrow(AppError);
  });

  it('fills what the defaults leave out with the built-ins and refuses unknown or mistyped fields', () => {
    expect(parseDefaults({})).toEqual(BUILT_IN_DEFAULTS);
    expect(parseDefaults({ blockFree: true, lang: 'fr', messages: { warning: 'Attention' } })).toEqual({
      blockDisposable: true,
      blockFree: true,
      lang: 'fr',
      messages: { warning: 'Attention' },
    });
    for (const bad of [
      null,
      [],
      { lang: 'pt' },
      { blockDisposable: 1 },
      { messages: [] },
      { messages: { hello: 'x' } },
      { messages: { invalid: 'x'.repeat(201) } },
      { theme: 'dark' },
    ]) {
      expect(() => parseDefaults(bad)).toThrow(AppError);
    }
  });
});
