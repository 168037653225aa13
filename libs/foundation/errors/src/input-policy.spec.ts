import { assertPlainText, isPlainText, jsonDepth, MAX_JSON_DEPTH } from './input-policy';

describe('the input policy', () => {
  it.each(['\u0000', '\u0007', '\t', '\r', '\n', '\u001b', '\u007f', '\u0085', '\u2028', '\u2029', '\uD800', '\uDFFF'])(
    'refuses %j in a one-line field',
    (char) => {
      expect(isPlainText(`a${char}b`)).toBe(false);
      expect(() => assertPlainText('name', `a${char}b`)).toThrow(
        expect.objectContaining({ code: 'bad_request', message: expect.stringContaining('name must not contain') }),
      );
    },
  );

  it('allows tabs and line breaks in multi-line text, never NUL, other controls or lone surrogates', () => {
    expect(isPlainText('a\tb\r\nc', { multiline: true })).toBe(true);
    for (const char of ['\u0000', '\u0008', '\u001b', '\u007f', '\uD800'])
      expect(isPlainText(`a${char}b`, { multiline: true })).toBe(false);
  });

  it('lets any real character through, astral ones included', () => {
    expect(isPlainText('Zoë Ünal — 東京 😀')).toBe(true);
  });

  it('measures nesting without recursion, stopping once past the limit', () => {
    expect(jsonDepth('x')).toBe(0);
    expect(jsonDepth({ emails: ['a'] })).toBe(2);
    expect(jsonDepth({ a: { b: { c: [1] } } })).toBe(4);
    const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`) as unknown;
    expect(jsonDepth(deep)).toBe(MAX_JSON_DEPTH + 1);
  });
});
