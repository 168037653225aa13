import { randomBytes } from 'node:crypto';
import { checkMailbox, parseAddress } from './syntax';

describe('parseAddress: valid addresses', () => {
  it.each([
    ['john.doe@example.com', 'john.doe@example.com', 'example.com'],
    ['  John.Doe@EXAMPLE.com\t', 'John.Doe@example.com', 'example.com'],
    ["o'brien+tag@sub.example.co.uk", "o'brien+tag@sub.example.co.uk", 'sub.example.co.uk'],
    ["!#$%&'*+/=?^_`{|}~-@example.org", "!#$%&'*+/=?^_`{|}~-@example.org", 'example.org'],
    ['"john.doe"@example.com', 'john.doe@example.com', 'example.com'],
    ['"john doe"@example.com', '"john doe"@example.com', 'example.com'],
    ['"a\\"b"@example.com', '"a\\"b"@example.com', 'example.com'],
    ['"very.(),:;<>[]\\".unusual"@example.com', '"very.(),:;<>[]\\".unusual"@example.com', 'example.com'],
    ['user@[192.168.1.1]', 'user@[192.168.1.1]', '[192.168.1.1]'],
    ['user@[IPv6:2001:db8::1]', 'user@[IPv6:2001:db8::1]', '[IPv6:2001:db8::1]'],
    ['josé@exämple.com', 'josé@exämple.com', 'exämple.com'],
    ['user@XN--EXMPLE-CUA.com', 'user@exämple.com', 'exämple.com'],
    ['用户@例子.广告', '用户@例子.广告', '例子.广告'],
    ['""@example.com', '""@example.com', 'example.com'],
    ['"\\ "@example.com', '" "@example.com', 'example.com'],
    ['user@io', 'user@io', 'io'],
    [
      'user@[IPv6:1111:2222:3333:4444:5555:6666:7777:8888]',
      'user@[IPv6:1111:2222:3333:4444:5555:6666:7777:8888]',
      '[IPv6:1111:2222:3333:4444:5555:6666:7777:8888]',
    ],
    ['user@[IPv6:1:2:3:4:5::6]', 'user@[IPv6:1:2:3:4:5::6]', '[IPv6:1:2:3:4:5::6]'],
    ['user@[IPv6:::]', 'user@[IPv6:::]', '[IPv6:::]'],
    ['user@[IPv6:::ffff:192.0.2.1]', 'user@[IPv6:::ffff:192.0.2.1]', '[IPv6:::ffff:192.0.2.1]'],
    ['user@[IPv6:1:2:3:4:5:6:192.0.2.1]', 'user@[IPv6:1:2:3:4:5:6:192.0.2.1]', '[IPv6:1:2:3:4:5:6:192.0.2.1]'],
  ])('%j → %j', (input, email, domain) => {
    const result = parseAddress(input);
    expect(result).toMatchObject({ valid: true, email, domain });
  });

  it('gives the A-label for DNS and SMTP, and flags what needs SMTPUTF8 or is a literal', () => {
    expect(parseAddress('josé@exämple.com')).toMatchObject({
      asciiDomain: 'xn--exmple-cua.com',
      smtpAddress: 'josé@xn--exmple-cua.com',
      needsSmtpUtf8: true,
      addressLiteral: false,
    });
    expect(parseAddress('user@[10.0.0.1]')).toMatchObject({ addressLiteral: true, needsSmtpUtf8: false });
    expect(parseAddress('"john doe"@example.com')).toMatchObject({
      smtpAddress: '"john doe"@example.com',
      localPart: '"john doe"',
    });
  });

  it('accepts the length limits exactly', () => {
    const local = 'a'.repeat(64);
    const label = 'b'.repeat(63);
    expect(parseAddress(`${local}@${label}.com`).valid).toBe(true);
    const domain = `${'c'.repeat(63)}.${'d'.repeat(63)}.${'e'.repeat(58)}.com`;
    expect(parseAddress(`a@${domain}`).valid).toBe(true);
  });
});

describe('parseAddress: invalid addresses', () => {
  it.each([
    ['', 'no @'],
    ['plainaddress', 'no @'],
    ['@example.com', 'local part is empty'],
    ['john@', 'domain is empty'],
    ['john..doe@example.com', 'two dots'],
    ['.john@example.com', 'starts or ends with a dot'],
    ['john.@example.com', 'starts or ends with a dot'],
    ['john doe@example.com', 'space'],
    ['john(comment)@example.com', 'comments'],
    ['john@example.com.', 'ends with a dot'],
    ['john@example..com', 'empty label'],
    ['john@-example.com', 'hyphen'],
    ['john@example-.com', 'hyphen'],
    ['john@ex_ample.com', 'underscore'],
    ['john@example.123', 'not a valid'],
    ['john@192.0.2.1', 'all digits'],
    // The URL parser reads these as IPv4 addresses (127.0.0.1, 1.0.0.127, 0.0.0.123).
    ['john@0x7f.1', 'all digits'],
    ['john@1.0x7f', 'all digits'],
    ['john@123', 'all digits'],
    ['john@[300.1.1.1]', 'literal is malformed'],
    ['john@[IPv6:zz::1]', 'IPv6'],
    // RFC 5321: eight groups, or at most six beside `::`; an IPv4 tail counts as two; no zone id.
    ['john@[IPv6:1:2:3:4:5:6:7]', 'IPv6'],
    ['john@[IPv6:1:2:3:4:5:6:7::]', 'IPv6'],
    ['john@[IPv6:1:2:3:4:5:6::7]', 'IPv6'],
    ['john@[IPv6:1:2:3:4:5:6:7:192.0.2.1]', 'IPv6'],
    ['john@[IPv6:1:2:3:4:5::192.0.2.1]', 'IPv6'],
    ['john@[IPv6:1::2::3]', 'IPv6'],
    ['john@[IPv6::1:2]', 'IPv6'],
    ['john@[IPv6:fe80::1%eth0]', 'IPv6'],
    ['john@[::1]', 'literal is malformed'],
    ['"jo\\éhn"@example.com', 'escapes only printable ASCII'],
    // 64 octets once the needless escape is dropped, 65 as written.
    [`"${'a'.repeat(61)}\\b"@example.com`, 'longer than 64'],
    ['a@b@example.com', 'need quoting'],
    ['"unterminated@example.com', 'need quoting'],
    ['john@exa mple.com', 'space'],
    [`${'a'.repeat(65)}@example.com`, 'longer than 64'],
    [`a@${'b'.repeat(64)}.com`, 'label'],
    [`${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.com`, 'longer than 254'],
  ])('%j is invalid (%s)', (input, problem) => {
    const result = parseAddress(input);
    expect(result.valid).toBe(false);
    if (!result.valid) expect(result.problem).toContain(problem);
  });

  it.each(['\r', '\n', '\r\n', '\0', '\x07', '\x7f', '\u0085', '\u2028'])(
    'refuses the control character %j anywhere',
    (char) => {
      for (const input of [
        `jo${char}hn@example.com`,
        `john@exa${char}mple.com`,
        `"jo${char}hn"@example.com`,
        `john@example.com${char}`,
        `${char}john@example.com`,
      ]) {
        expect(parseAddress(input).valid).toBe(false);
      }
    },
  );

  it.each(['/evil', '\\evil', '?x=1', '#frag', ':25', '%40x', '／evil', '？x', '＃frag'])(
    'refuses junk after the domain (%j): it is not a shorter domain',
    (junk) => {
      const result = parseAddress(`peter@example.com${junk}`);
      expect(result).toMatchObject({ valid: false, problem: expect.stringContaining('not allowed in a domain') });
      expect(result.email).toBe(`peter@example.com${junk}`);
    },
  );

  it.each(['\uD800', '\uDC00', 'a\uDBFFb'])('refuses a lone UTF-16 surrogate (%s) anywhere', (escaped) => {
    const char = JSON.parse(`"${escaped}"`) as string;
    for (const input of [`jo${char}hn@example.com`, `john@exa${char}mple.com`, `"jo${char}hn"@example.com`]) {
      expect(parseAddress(input)).toMatchObject({ valid: false, problem: expect.stringContaining('surrogate') });
    }
    // A whole pair is a character like any other.
    expect(parseAddress('jo😀hn@example.com').valid).toBe(true);
  });

  it.each(['\\uFEFF', '\\u200B', '\\u202E', '\\u00AD', '\\u00A0', '\\u3000'])(
    'refuses an invisible or direction-changing character (%s) in the local part, quoted or not (found by the fuzz)',
    (escaped) => {
      const char = JSON.parse(`"${escaped}"`) as string;
      for (const input of [`jo${char}hn@example.com`, `john${char}@example.com`, `"jo${char}hn"@example.com`]) {
        expect(parseAddress(input)).toMatchObject({ valid: false, problem: expect.stringContaining('invisible') });
      }
      expect(parseAddress('josé.例@example.com').valid).toBe(true);
    },
  );

  it('keeps the joiners that scripts and emoji are written with (U+200C, U+200D)', () => {
    expect(parseAddress('می\u200Cخواهم@example.ir').valid).toBe(true);
    expect(parseAddress('👩\u200D💻@example.com').valid).toBe(true);
  });

  it('answers an invalid address as given, but for what no text can hold (NUL, controls, lone surrogates → U+FFFD)', () => {
    expect(parseAddress('a\u0000b@acme.test')).toMatchObject({
      valid: false,
      email: 'a\uFFFDb@acme.test',
      localPart: 'a\uFFFDb',
    });
    expect(parseAddress('a@acme\r\n.test')).toMatchObject({
      valid: false,
      email: 'a@acme\uFFFD\uFFFD.test',
      domain: 'acme\uFFFD\uFFFD.test',
    });
    expect(parseAddress('a\uD800@x.test')).toMatchObject({ valid: false, email: 'a\uFFFD@x.test' });
    expect(parseAddress('no at sign').email).toBe('no at sign');
  });

  it('refuses SMTP command injection through the address', () => {
    expect(parseAddress('victim@example.com>\r\nRCPT TO:<other@example.com').valid).toBe(false);
    expect(parseAddress('"x\r\nQUIT"@example.com').valid).toBe(false);
  });

  it('checks the rule as written: only parseAddress trims what surrounds a typed address', () => {
    expect(checkMailbox(' john@example.com').valid).toBe(false);
    expect(checkMailbox('john@example.com\t').valid).toBe(false);
    expect(parseAddress(' john@example.com\t')).toMatchObject({ valid: true, email: 'john@example.com' });
  });

  it('keeps the trimmed input and the domain for the result of an invalid address', () => {
    expect(parseAddress(' john..doe@Example.COM ')).toMatchObject({
      valid: false,
      email: 'john..doe@Example.COM',
      domain: 'example.com',
    });
  });
});

describe('parseAddress: fuzzing', () => {
  const alphabet = [
    'a',
    'Z',
    '0',
    '.',
    '@',
    '"',
    '\\',
    ' ',
    '\t',
    '\r',
    '\n',
    '\0',
    '[',
    ']',
    ':',
    '-',
    '_',
    '+',
    '(',
    ')',
    'é',
    '例',
    'xn--',
    '\u200b',
    '\ud800',
    '%',
    ',',
    ';',
    '<',
    '>',
  ];

  function randomString(length: number): string {
    const bytes = randomBytes(length);
    let out = '';
    for (const byte of bytes) out += byte % 3 === 0 ? String.fromCharCode(byte) : alphabet[byte % alphabet.length];
    return out;
  }

  it('never throws on 100,000 random and adversarial strings, and never passes a control character', () => {
    for (let i = 0; i < 100_000; i++) {
      const input = i % 10 === 0 ? `${randomString(8)}@${randomString(12)}` : randomString(1 + (i % 90));
      const result = parseAddress(input);
      if (result.valid) {
        expect(result.smtpAddress).not.toMatch(/[\r\n\0]/);
        expect(result.smtpAddress).not.toMatch(/[\u0000-\u001f\u007f]/);
        expect(Buffer.byteLength(result.smtpAddress)).toBeLessThanOrEqual(254);
      }
    }
  });
});
