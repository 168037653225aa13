import { fields, JSON_BODIES, TOOL_ARGUMENTS, withField } from './json-bodies';
import type { Random } from './random';

/** Where an input is sent; the fuzz prints its figures by surface. */
export const SURFACES = [
  'single',
  'batch',
  'lists',
  'widget-keyless',
  'widget-keyed',
  'widget-settings',
  'signup',
  'keys',
  'finder',
  'domain',
  'credits',
  'feedback',
  'headers',
  'nulls',
  'mcp-nulls',
  'corpus',
] as const;
export type Surface = (typeof SURFACES)[number] | 'cli';

/**
 * One hostile HTTP request, as bytes: the harness writes it on a raw socket (no client library
 * would send most of these) and adds the lane's key (`auth`) unless the case brings its own
 * `x-api-key`, a random client address unless it brings its own `x-forwarded-for`, and the
 * Content-Length.
 */
export interface FuzzCase {
  surface: Surface;
  method: string;
  /** `:id` stands for the id of one of the lane's own keys. */
  path: string;
  headers: Array<[string, string]>;
  body: Buffer;
  /** `settings`: a secret key of the account whose widget settings the fuzz rewrites (its widget key is never used). */
  auth: 'secret' | 'widget' | 'none' | 'settings';
  /** The answer must be a refusal with code bad_request: a 400 (`http`), or a tool result with isError (`mcp`). */
  badRequest?: 'http' | 'mcp';
}

/** The lab's domains, fast ones first (the slow ones answer at the check's deadline). */
const FAST_DOMAINS = [
  'acme.test',
  'catchall.test',
  'gmail.com',
  'yahoo.com',
  'mailinator.com',
  'learning.test',
  'picky.test',
  'utf8.test',
  'nopipe.test',
  'helo-only.test',
  'tls-offered.test',
  'blocked.test',
  'implicit.test',
  'nullmx.test',
  'nomail.test',
  'dangling.test',
  'unknown-domain.test',
  'example.com',
];
const SLOW_DOMAINS = [
  'greylist.test',
  'tarpit.test',
  'timeout.test',
  'servfail.test',
  'slowdns.test',
  'busy.test',
  'slow.test',
  'deadmx.test',
  'failover.test',
  'tls-required.test',
  'tls-broken.test',
  'blocked-banner.test',
  'rebind.test',
];
const LOCALS = [
  'jane',
  'john.doe',
  'peter',
  'nobody',
  'admin',
  'info',
  'full.box',
  'temp.full',
  'gone',
  'real.person',
  'x',
  'a.b+tag',
  'josé',
  'ceo',
  'jsmith',
  '用户',
  "o'brien",
  'first_last',
];
const CONTROL = Array.from({ length: 32 }, (_, code) => String.fromCharCode(code)).concat([
  '\u007f',
  '\u0085',
  '\u009b',
  '\u2028',
  '\u2029',
]);
const SURROGATES = ['\uD800', '\uDBFF', '\uDC00', '\uDFFF', '\uD83D'];
const JUNK_AFTER_DOMAIN = [
  '/evil',
  '\\evil',
  '?x=1',
  '#frag',
  '／evil',
  '＼evil',
  '？x',
  '＃x',
  '/',
  '%2fevil',
  ':25',
  ':0',
  ';x',
  ' x',
  '\t',
  '.',
  '..',
];
const ODD_CHARS = [
  '\u200b',
  '\u200d',
  '\u202e',
  '\ufeff',
  '\u0301',
  'İ',
  'ı',
  'ß',
  'ﬀ',
  '𝐚',
  '😀',
  '\uFFFD',
  '\uFFFF',
  'Ａ',
  '＠',
  '．',
  '。',
  '"',
  '\\',
  '<',
  '>',
  '(',
  ')',
  ',',
  ';',
  ':',
  '[',
  ']',
  ' ',
  '%',
  '&',
  '*',
  '`',
  "'",
  '|',
  '~',
];
const SMTP_INJECTIONS = [
  '\r\nDATA\r\n',
  '\r\nRCPT TO:<victim@acme.test>\r\n',
  '>\r\nRSET\r\n',
  '\nQUIT\n',
  '\rHELO x\r',
  '\r\n.\r\n',
  '> SIZE=1\r\nVRFY root',
  '\u0000\r\nNOOP',
];

export function labDomain(rng: Random): string {
  return rng.chance(0.93) ? rng.pick(FAST_DOMAINS) : rng.pick(SLOW_DOMAINS);
}

/** Text of `length` characters, anything from printable ASCII to broken UTF-16. */
export function hostileText(rng: Random, length = rng.length(64)): string {
  let out = '';
  for (let i = 0; i < length; i++) {
    out += rng.weighted<string>([
      [6, () => rng.string(1, 'abcdefghijklmnopqrstuvwxyz0123456789.-_@')],
      [1, () => rng.pick(CONTROL)],
      [1, () => rng.pick(SURROGATES)],
      [1, () => rng.pick(ODD_CHARS)],
      [1, () => String.fromCodePoint(rng.int(0x80, 0x10ffff)).replace(/[\uD800-\uDFFF]/g, '')],
    ]);
  }
  return out;
}

function insertAt(rng: Random, text: string, piece: string): string {
  const at = rng.int(0, text.length);
  return text.slice(0, at) + piece + text.slice(at);
}

/** An address to check: a lab address, mostly broken in one of the ways issue 15 lists. */
export function hostileAddress(rng: Random): string {
  const local = rng.pick(LOCALS);
  const domain = labDomain(rng);
  const plain = `${local}@${domain}`;
  return rng.weighted<string>([
    [3, () => plain],
    [1, () => `${local}${rng.int(0, 99999)}@${domain}`],
    [2, () => insertAt(rng, plain, rng.pick(CONTROL))],
    [1, () => insertAt(rng, plain, '\u0000')],
    [2, () => insertAt(rng, plain, rng.pick(SMTP_INJECTIONS))],
    [1, () => `${plain}${rng.pick(SMTP_INJECTIONS)}`],
    [2, () => insertAt(rng, plain, rng.pick(SURROGATES))],
    [2, () => `${plain}${rng.pick(JUNK_AFTER_DOMAIN)}${rng.chance(0.5) ? hostileText(rng, rng.int(0, 8)) : ''}`],
    [1, () => `${'a'.repeat(rng.pick([64, 65, 100, 300, 1000]))}@${domain}`],
    [1, () => `${local}@${'b'.repeat(rng.pick([63, 64, 200]))}.test`],
    [1, () => `${local}@${Array.from({ length: rng.int(20, 140) }, () => 'abc').join('.')}.test`],
    [1, () => 'x'.repeat(rng.pick([255, 1024, 1025, 5000]))],
    [2, () => insertAt(rng, plain, rng.pick(ODD_CHARS))],
    [
      1,
      () =>
        `${local}@${rng.pick(['xn--', 'xn--zz', 'xn--80ak6aa92e', 'ａｃｍｅ', 'acme\u3002test', 'ACME', 'аcme', 'xn--acme-.test', '-acme', 'acme-'])}.${rng.pick(['test', 'com', 'xn--p1ai', 'рф'])}`,
    ],
    [
      2,
      () =>
        rng.pick([
          `"${local}"@${domain}`,
          `"${local}@${domain}`,
          `${local}"@${domain}`,
          `"a\\"b"@${domain}`,
          `"a b"@${domain}`,
          `"\r\n"@${domain}`,
          `""@${domain}`,
          `"${'q'.repeat(80)}"@${domain}`,
        ]),
    ],
    [
      1,
      () =>
        rng.pick([
          `${local}@[127.0.0.1]`,
          `${local}@[IPv6:::1]`,
          `${local}@[::ffff:127.0.0.1]`,
          `${local}@127.0.0.1`,
          `${local}@localhost`,
          `${local}@[300.1.1.1]`,
          `${local}@[`,
          `${local}@]`,
        ]),
    ],
    [
      2,
      () =>
        rng.pick([
          '',
          ' ',
          '@',
          '@@',
          `${local}@`,
          `@${domain}`,
          `${local}@@${domain}`,
          `${local}@${domain}@${domain}`,
          `.${plain}`,
          `${local}.@${domain}`,
          `a..b@${domain}`,
          `${plain}.`,
          ` ${plain} `,
          `${local}@.${domain}`,
          `<${plain}>`,
          `mailto:${plain}`,
          `${local}%40${domain}`,
        ]),
    ],
    [2, () => hostileText(rng)],
  ]);
}

/** A value of a JSON field where a string was expected. */
function hostileValue(rng: Random): unknown {
  return rng.weighted<unknown>([
    [4, () => hostileText(rng)],
    [1, () => rng.pick([0, -1, 1.5, 1e308, -0, Number.MAX_SAFE_INTEGER + 2])],
    [1, () => rng.pick([null, true, false])],
    [1, () => rng.pick<unknown>([[], {}, [hostileText(rng)], { toString: 'x', valueOf: 1 }, { length: 1e9 }])],
    [1, () => 'x'.repeat(rng.pick([101, 255, 1025, 70_000]))],
    [1, () => nested(rng.int(2, 40), hostileText(rng, 4))],
  ]);
}

function nested(depth: number, leaf: unknown): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
}

/** JSON text for `template`, or something that pretends to be it. */
function hostileJson(rng: Random, template: Record<string, unknown>): string {
  const mutated = (): string => {
    const body: Record<string, unknown> = { ...template };
    const fields = Object.keys(body);
    for (let i = rng.int(1, 2); i > 0 && fields.length > 0; i--) body[rng.pick(fields)] = hostileValue(rng);
    if (rng.chance(0.2)) delete body[rng.pick(fields)];
    return JSON.stringify(body);
  };
  return rng.weighted<string>([
    // The template itself carries hostile addresses and text: sent as it is, it reaches the handler.
    [8, () => JSON.stringify(template)],
    [6, mutated],
    [
      2,
      () =>
        JSON.stringify({
          ...template,
          [rng.pick(['admin', 'credits', 'balance', 'scope', 'accountId', 'id', 'type'])]: hostileValue(rng),
          [hostileText(rng, 6)]: 1,
        }),
    ],
    [
      2,
      // Prototype pollution: JSON.parse makes these own keys; a careless merge makes them the prototype's.
      () => {
        const inner = JSON.stringify(template).slice(1, -1);
        const pollution = rng.pick([
          '"__proto__":{"admin":true,"scope":"full","balance":1e9}',
          '"constructor":{"prototype":{"polluted":true}}',
          '"__proto__":{"__proto__":{"x":1}}',
          '"prototype":{"toString":1}',
          '"__proto__":null',
          '"hasOwnProperty":1,"toJSON":1',
        ]);
        return `{${pollution}${inner ? `,${inner}` : ''}}`;
      },
    ],
    [
      1,
      () => `${'['.repeat(rng.pick([17, 100, 5_000, 100_000]))}${']'.repeat(rng.pick([0, 17, 100, 5_000, 100_000]))}`,
    ],
    [1, () => `${'{"a":'.repeat(rng.pick([17, 2_000, 50_000]))}1${'}'.repeat(rng.int(0, 50_000))}`],
    [
      1,
      () =>
        rng.pick([
          '',
          'null',
          '0',
          '"x"',
          '[]',
          'true',
          '{',
          '{"email":',
          '{"a":1,}',
          "{'a':1}",
          'NaN',
          '{"a":1e99999}',
          '\uFEFF{}',
          '{"a":"\\ud800"}',
          '{"a":"\\u0000"}',
          '{"a" 1}',
          '{"a":1}{"b":2}',
          '{"a":"\\x41"}',
        ]),
    ],
    [1, () => JSON.stringify({ ...template, pad: 'x'.repeat(rng.pick([500_000, 1_100_000])) })],
    [1, () => JSON.stringify(Array.from({ length: rng.int(2, 3) }, () => template))],
  ]);
}

const JSON_TYPE: Array<[string, string]> = [['content-type', 'application/json']];

function hostileContentType(rng: Random): Array<[string, string]> {
  return rng.weighted<Array<[string, string]>>([
    [12, () => JSON_TYPE],
    [
      3,
      () => [
        [
          'content-type',
          rng.pick([
            'application/json; charset=utf-16',
            'application/json; charset=bogus',
            'application/json; charset=latin1',
            'application/JSON',
            'application/vnd.api+json',
            'text/plain',
            'application/x-www-form-urlencoded',
            'multipart/form-data',
            'multipart/form-data; boundary=x',
            '',
            ';;;',
            'application/json; boundary="',
            'application/json;' + 'a=b;'.repeat(500),
          ]),
        ],
      ],
    ],
    [1, () => []],
    [
      1,
      () => [
        ...JSON_TYPE,
        ['content-encoding', rng.pick(['gzip', 'deflate', 'br', 'identity', 'x-unknown', 'gzip, gzip'])],
      ],
    ],
  ]);
}

const encode = (text: string) => {
  try {
    return encodeURIComponent(text);
  } catch {
    // A lone surrogate has no percent-encoding: send it as the broken UTF-8 a hostile client would.
    return text
      .replace(/[\uD800-\uDFFF]/g, '%ED%A0%80')
      .replace(/[^A-Za-z0-9%._~-]/g, (char) => encodeURIComponent(char));
  }
};

/** A path segment or query value, percent-encoded or broken in how it is encoded. */
function hostileParam(rng: Random, value: string): string {
  return rng.weighted<string>([
    [18, () => encode(value)],
    [1, () => rng.pick(['%', '%zz', '%e9', '%ED%A0%80', '%C0%AF', '%00', '%0d%0a', '%2e%2e%2f', '%25', '%uD800'])],
    [1, () => `${encode(value)}${rng.pick(['%', '%z', '%FF%FE'])}`],
  ]);
}

function query(rng: Random, params: Array<[string, string]>): string {
  const parts = params.filter(() => rng.chance(0.9)).map(([name, value]) => `${name}=${hostileParam(rng, value)}`);
  if (rng.chance(0.15)) parts.push(`${rng.pick(params)[0]}=${hostileParam(rng, hostileText(rng))}`);
  if (rng.chance(0.1))
    parts.push(
      rng.pick([
        'a[b]=c',
        '__proto__[x]=1',
        'constructor[prototype][x]=1',
        '&&&',
        '=',
        `${'k'.repeat(5000)}=v`,
        'x=' + 'y&'.repeat(2000),
      ]),
    );
  return parts.length > 0 ? `?${parts.join('&')}` : '';
}

const DATES = [
  '2026-01-01',
  '2025-02-29',
  '2024-02-29',
  '0000-00-00',
  '9999-12-31',
  '2026-1-1',
  '-2026-01-01',
  '+2026-01-01',
  '2026-01-01T00:00:00Z',
  '20260101',
  '1970-01-01',
  '2026-13-01',
  'today',
  '',
];
const NUMBERS = [
  '1',
  '2',
  '0',
  '-1',
  '1.5',
  '1e3',
  '999999999',
  '9999999999',
  'NaN',
  'Infinity',
  '0x10',
  ' 1',
  '1 ',
  '١',
  '',
  '01',
  '100',
  '101',
  String(2 ** 53),
];
const ids = (rng: Random, prefix: string) =>
  rng.pick([
    `${prefix}_000000000000000000000000`,
    `${prefix}_${hostileText(rng, 8)}`,
    hostileText(rng),
    'x'.repeat(rng.pick([200, 5000])),
    '..',
    '.',
    `${prefix}_%00`,
    '%2F',
  ]);

function address(rng: Random): string {
  return hostileAddress(rng);
}

function jsonCase(
  rng: Random,
  surface: Surface,
  method: string,
  path: string,
  template: Record<string, unknown>,
  auth: FuzzCase['auth'],
): FuzzCase {
  return {
    surface,
    method,
    path,
    headers: hostileContentType(rng),
    body: Buffer.from(hostileJson(rng, template)),
    auth,
  };
}

const SCOPES = ['full', 'verify', 'lists', 'read-only'];

/** A CSV file: normal at first sight, broken in one of the ways a file written by anyone is. */
export function hostileCsv(rng: Random): Buffer {
  const columns = rng.weighted<string[]>([
    [6, () => ['email', 'name']],
    [2, () => ['id', 'E-mail Address', 'note']],
    [1, () => ['name', 'contact']],
    [1, () => Array.from({ length: rng.pick([3, 499, 500, 501, 2_000]) }, (_, i) => (i === 0 ? 'email' : `c${i}`))],
    [1, () => [hostileText(rng, 6), 'email']],
  ]);
  const delimiter = rng.chance(0.8) ? ',' : rng.pick([';', '\t', '|']);
  const rows: string[][] = [];
  for (let i = rng.int(0, rng.chance(0.9) ? 12 : 80); i > 0; i--) {
    const row = columns.map((column, index) =>
      index === 0 || /mail|contact/i.test(column)
        ? address(rng)
        : rng.chance(0.8)
          ? rng.string(rng.int(0, 10), 'abcdefghij ')
          : hostileText(rng),
    );
    rows.push(row);
  }
  // A control character anywhere refuses the whole file (the input policy): most files keep to printable text, so that their rows are read.
  if (rng.chance(0.85))
    for (const row of rows)
      row.forEach(
        (value, index) =>
          (row[index] = value.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\uD800-\uDFFF]/g, '')),
      );
  const field = (value: string) =>
    rng.chance(0.1) ? value : /[",;\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
  const lineEnd = rng.pick(['\n', '\n', '\r\n', '\r']);
  let text =
    [columns, ...rows].map((row) => row.map(field).join(delimiter)).join(lineEnd) + (rng.chance(0.8) ? lineEnd : '');
  text = rng.weighted<string>([
    [10, () => text],
    [1, () => `\uFEFF${text}`],
    [1, () => `\uFEFF\uFEFF${text}`],
    [1, () => insertAt(rng, text, '"')],
    [1, () => insertAt(rng, text, '\u0000')],
    [1, () => insertAt(rng, text, rng.pick(['"a""b', '"\n"', '""""', '\\"', `"${'x'.repeat(100)}`]))],
    [
      1,
      () => `${text}${text.split(lineEnd)[1] ?? ''}${delimiter}"${'y'.repeat(rng.pick([10_000, 300_000]))}"${lineEnd}`,
    ],
    [
      1,
      () =>
        rng.pick(['', ' ', '\n', '\n\n\n', 'email', 'email\n', '\uFEFF', ',,,\n,,,\n', '"', 'email\n"unterminated']),
    ],
    [1, () => text.replace(/,/g, () => rng.pick([',', ';']))],
  ]);
  const bytes = Buffer.from(text);
  // Broken UTF-8 or UTF-16: bytes no text reading makes sense of.
  if (rng.chance(0.05)) return Buffer.concat([bytes, Buffer.from([0xff, 0xfe, 0xc0, 0x80, 0xed, 0xa0, 0x80])]);
  if (rng.chance(0.02)) return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
  return bytes;
}

interface Part {
  name: string;
  filename?: string;
  headers?: string[];
  body: Buffer;
}

function multipartBody(boundary: string, parts: Part[], eol: string, close: boolean): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `Content-Disposition: form-data; name="${part.name}"${part.filename !== undefined ? `; filename="${part.filename}"` : ''}`;
    chunks.push(
      Buffer.from(`--${boundary}${eol}${(part.headers ?? [disposition]).join(eol)}${eol}${eol}`),
      part.body,
      Buffer.from(eol),
    );
  }
  if (close) chunks.push(Buffer.from(`--${boundary}--${eol}`));
  return Buffer.concat(chunks);
}

/** A list upload: a multipart body (fine, garbled or cut short) carrying a CSV and the list's fields. */
function listUpload(rng: Random): FuzzCase {
  const boundary = rng.weighted<string>([
    [8, () => `----fz${rng.string(12, 'abcdef0123456789')}`],
    [1, () => rng.pick(['b', 'x'.repeat(70), 'y'.repeat(300), 'a b', '"quoted"', '--', 'é', '=='])],
  ]);
  const parts: Part[] = [];
  const field = (name: string, value: string) => parts.push({ name, body: Buffer.from(value) });
  if (rng.chance(0.3)) field('name', rng.chance(0.6) ? `list ${rng.int(0, 999)}` : hostileText(rng));
  if (rng.chance(0.15))
    field('emailColumn', rng.pick(['email', 'E-mail Address', 'contact', 'nope', hostileText(rng)]));
  if (rng.chance(0.1))
    field(
      'webhookUrl',
      rng.pick([
        'https://hooks.example.com/x',
        'http://127.0.0.1:1/hook',
        'file:///etc/passwd',
        'javascript:alert(1)',
        'http://[::1]/',
        'http://0x7f000001/',
        'gopher://x',
        hostileText(rng),
        'http://' + 'a'.repeat(3000),
      ]),
    );
  const file: Part = {
    name: 'file',
    filename: rng.chance(0.8)
      ? 'list.csv'
      : rng.pick(['', '../../etc/passwd', 'a\u0000.csv', 'ü.csv', 'x'.repeat(1000), 'a"b.csv']),
    body: hostileCsv(rng),
  };
  parts.splice(rng.int(0, parts.length), 0, file);
  let eol = '\r\n';
  let close = true;
  let header = `multipart/form-data; boundary=${boundary}`;
  rng.weighted<void>([
    [10, () => undefined],
    [2, () => (close = false)],
    [1, () => (eol = '\n')],
    [
      1,
      () =>
        (header = rng.pick([
          'multipart/form-data',
          'multipart/form-data; boundary=',
          'multipart/form-data; boundary=other',
          'multipart/mixed; boundary=' + boundary,
          'text/csv',
          'multipart/form-data; charset=bogus; boundary=' + boundary,
        ])),
    ],
    [
      1,
      () =>
        parts.push(
          ...Array.from({ length: rng.pick([25, 200, 2_000]) }, (_, i) => ({ name: `f${i}`, body: Buffer.from('v') })),
        ),
    ],
    [1, () => parts.unshift({ name: 'n'.repeat(rng.pick([1_000, 100_000])), body: Buffer.from('v') })],
    [1, () => parts.unshift({ name: 'file', filename: 'first.csv', body: Buffer.from('email\njane@acme.test\n') })],
    [
      1,
      () =>
        (file.headers = rng.pick([
          [],
          ['Content-Type: text/csv'],
          ['Content-Disposition: attachment'],
          ['Content-Disposition: form-data; name=file; filename=x.csv'],
          [`Content-Disposition: form-data; name="file"; filename*=UTF-8''%ff%fe.csv`],
        ])),
    ],
    [1, () => (file.name = rng.pick(['File', 'files', 'file[]', '']))],
  ]);
  let body = multipartBody(boundary, parts, eol, close);
  // Cut short anywhere: the very request that used to end the gateway (issue 15).
  if (rng.chance(0.1)) body = body.subarray(0, rng.int(0, body.length));
  if (rng.chance(0.05)) body = Buffer.concat([Buffer.from(hostileText(rng)), body, Buffer.from(hostileText(rng))]);
  return {
    surface: 'lists',
    method: 'POST',
    path: '/v1/lists',
    headers: [['content-type', header]],
    body,
    auth: 'secret',
  };
}

/** A key as a client might send it, or as a guesser would. */
function hostileKey(rng: Random): string {
  return rng.pick([
    '',
    ' ',
    `mg_live_${rng.string(32, 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789')}`,
    `mg_widget_${rng.string(32, 'abcdefghijklmnopqrstuvwxyz0123456789')}`,
    `mg_live_${rng.string(rng.int(0, 80), 'abc')}`,
    `Bearer mg_live_${rng.string(32, 'abc')}`,
    'x'.repeat(rng.pick([100, 8_000])),
    'mg_live_\u00e9\u00ff\u0080',
    "' OR 1=1 --",
    'mg_live_%00',
    'null',
  ]);
}

/** Header-level hostility on an otherwise ordinary request. */
function hostileHeaders(rng: Random): FuzzCase {
  const base = rng.pick<() => FuzzCase>([
    () => ({
      surface: 'headers',
      method: 'GET',
      path: '/v1/credits',
      headers: [],
      body: Buffer.alloc(0),
      auth: 'secret',
    }),
    () => ({
      surface: 'headers',
      method: 'GET',
      path: `/v1/email-validation/jane@acme.test`,
      headers: [],
      body: Buffer.alloc(0),
      auth: 'secret',
    }),
    () => ({
      surface: 'headers',
      method: 'POST',
      path: '/v1/widget/verify',
      headers: JSON_TYPE,
      body: Buffer.from(JSON.stringify({ email: 'jane@acme.test', deviceId: `dev${rng.string(10, 'abcdef')}` })),
      auth: 'none',
    }),
    () => ({
      surface: 'headers',
      method: 'POST',
      path: '/v1/accounts',
      headers: JSON_TYPE,
      body: Buffer.from(JSON.stringify({ email: 'x@nomail.test' })),
      auth: 'none',
    }),
    () => ({ surface: 'headers', method: 'GET', path: '/v1/keys', headers: [], body: Buffer.alloc(0), auth: 'secret' }),
  ])();
  const headers = [...base.headers];
  for (let i = rng.int(1, 3); i > 0; i--) {
    rng.weighted<void>([
      [4, () => headers.push(['x-api-key', hostileKey(rng)])],
      [1, () => headers.push(['x-api-key', hostileKey(rng)], ['x-api-key', hostileKey(rng)])],
      [
        3,
        () =>
          headers.push([
            'x-forwarded-for',
            rng.pick([
              'unknown',
              '',
              ' ',
              '::ffff:1.2.3.4',
              '1.2.3.4, 5.6.7.8',
              Array.from({ length: 300 }, (_, n) => `10.0.${n % 256}.1`).join(', '),
              '999.999.1.1',
              '[::1]:80',
              '1.2.3.4:5',
              'fe80::1%eth0',
              hostileText(rng, 20),
              '127.0.0.1',
              ',,,',
            ]),
          ]),
      ],
      [1, () => headers.push(['x-request-id', rng.pick([hostileText(rng, 30), 'r'.repeat(5000), '../x', '<script>'])])],
      [
        1,
        () =>
          headers.push([
            'origin',
            rng.pick([
              'null',
              'https://shop.example',
              'http://[::1]',
              hostileText(rng, 20),
              'https://' + 'o'.repeat(2000),
            ]),
          ]),
      ],
      [
        1,
        () =>
          headers.push(
            ['accept', rng.pick(['text/csv', '*/*;q=x', 'application/xml', ''])],
            ['accept-encoding', rng.pick(['gzip', 'br;q=2', 'x'])],
          ),
      ],
      [1, () => headers.push(['transfer-encoding', rng.pick(['identity', 'gzip', 'x'])])],
      [
        1,
        () =>
          headers.push(
            ['range', 'bytes=0-1'],
            ['if-none-match', hostileText(rng, 10)],
            ['expect', rng.pick(['100-continue', 'x'])],
          ),
      ],
      [
        1,
        () =>
          headers.push([
            rng.pick(['x-a', 'cookie', 'authorization', 'x-http-method-override', 'host']),
            rng.pick(['x'.repeat(rng.pick([100, 6_000])), hostileText(rng, 20), '\u00ff\u0080']),
          ]),
      ],
    ]);
  }
  return { ...base, headers };
}

/** A JSON body (json-bodies.ts), valid but for one field, at any depth, sent as null. */
function nullField(rng: Random): FuzzCase {
  const body = rng.pick(JSON_BODIES);
  const { path } = rng.pick(fields(body.valid));
  return {
    surface: 'nulls',
    method: body.method,
    path: body.path,
    headers: JSON_TYPE,
    body: Buffer.from(JSON.stringify(withField(body.valid, path, null))),
    auth: body.auth,
    badRequest: 'http',
  };
}

/** A call of an MCP tool (stateless: one POST, no session), valid but for one argument, at any depth, sent as null. */
function nullArgument(rng: Random): FuzzCase {
  const [name, args] = rng.pick(Object.entries(TOOL_ARGUMENTS));
  const { path } = rng.pick(fields(args));
  return {
    surface: 'mcp-nulls',
    method: 'POST',
    path: '/mcp',
    headers: [...JSON_TYPE, ['accept', 'application/json, text/event-stream']],
    body: Buffer.from(
      JSON.stringify({
        jsonrpc: '2.0',
        id: rng.int(1, 1_000_000),
        method: 'tools/call',
        params: { name, arguments: withField(args, path, null) },
      }),
    ),
    auth: 'secret',
    badRequest: 'mcp',
  };
}

/** The next hostile input: a surface picked by weight, then an input for it. */
export function hostileCase(rng: Random): FuzzCase {
  return rng.weighted<FuzzCase>([
    [
      14,
      () => ({
        surface: 'single',
        method: rng.chance(0.95) ? 'GET' : rng.pick(['HEAD', 'POST', 'DELETE']),
        path: `/v1/email-validation/${hostileParam(rng, address(rng))}`,
        headers: [],
        body: Buffer.alloc(0),
        auth: 'secret',
      }),
    ],
    [
      12,
      () =>
        jsonCase(
          rng,
          'batch',
          'POST',
          '/v1/email-validation/batch',
          {
            emails: Array.from({ length: rng.chance(0.95) ? rng.int(1, 8) : rng.pick([0, 100, 101, 5_000]) }, () =>
              address(rng),
            ),
          },
          'secret',
        ),
    ],
    [8, () => listUpload(rng)],
    [
      10,
      () =>
        jsonCase(
          rng,
          'widget-keyless',
          'POST',
          '/v1/widget/verify',
          {
            email: address(rng),
            deviceId: rng.chance(0.9) ? `dev-${rng.string(16, 'abcdefghij0123456789')}` : hostileText(rng),
          },
          'none',
        ),
    ],
    [8, () => jsonCase(rng, 'widget-keyed', 'POST', '/v1/widget/verify', { email: address(rng) }, 'widget')],
    [
      2,
      () =>
        jsonCase(
          rng,
          'widget-settings',
          'PUT',
          '/v1/widget/settings',
          {
            allowedOrigins: rng.pick([
              [],
              ['https://shop.example'],
              [hostileText(rng)],
              'https://x',
              Array.from({ length: 200 }, (_, i) => `https://s${i}.example`),
            ]),
            defaults: {
              blockFree: rng.pick([true, 'yes', 1]),
              lang: rng.pick(['it', 'xx', hostileText(rng, 4)]),
              messages: { invalid: hostileText(rng) },
            },
          },
          'settings',
        ),
    ],
    [
      8,
      () =>
        jsonCase(
          rng,
          'signup',
          'POST',
          '/v1/accounts',
          { email: address(rng), name: rng.chance(0.7) ? 'Fuzz' : hostileText(rng) },
          'none',
        ),
    ],
    [
      8,
      () =>
        rng.weighted<FuzzCase>([
          [
            4,
            () =>
              jsonCase(
                rng,
                'keys',
                'POST',
                '/v1/keys',
                {
                  name: rng.chance(0.5) ? 'fuzz key' : hostileText(rng),
                  scope: rng.chance(0.8) ? rng.pick(SCOPES) : hostileText(rng, 6),
                  type: rng.pick(['secret', 'widget', 'other']),
                },
                'secret',
              ),
          ],
          [
            2,
            () =>
              jsonCase(
                rng,
                'keys',
                'PATCH',
                `/v1/keys/${hostileParam(rng, ids(rng, 'key'))}`,
                { name: hostileText(rng), scope: rng.pick(SCOPES) },
                'secret',
              ),
          ],
          [
            1,
            () => ({
              surface: 'keys',
              method: 'DELETE',
              path: `/v1/keys/${hostileParam(rng, ids(rng, 'key'))}`,
              headers: [],
              body: Buffer.alloc(0),
              auth: 'secret',
            }),
          ],
          [
            1,
            () => ({
              surface: 'keys',
              method: 'GET',
              path: `/v1/keys${query(rng, [
                ['page', rng.pick(NUMBERS)],
                ['limit', rng.pick(NUMBERS)],
              ])}`,
              headers: [],
              body: Buffer.alloc(0),
              auth: 'secret',
            }),
          ],
        ]),
    ],
    [
      8,
      () => {
        const params: Array<[string, string]> = rng.chance(0.6)
          ? [
              [
                'firstName',
                rng.chance(0.6) ? rng.pick(['John', 'José', 'Mary-Jane', "O'Neil", 'Łukasz']) : hostileText(rng),
              ],
              ['lastName', rng.chance(0.6) ? rng.pick(['Doe', 'Smith', 'van der Berg', 'García']) : hostileText(rng)],
            ]
          : [['fullName', rng.chance(0.5) ? 'John Doe' : hostileText(rng)]];
        params.push([
          'domain',
          rng.chance(0.6)
            ? rng.pick([
                labDomain(rng),
                'https://www.acme.test/about',
                'http://127.0.0.1',
                'localhost',
                '[::1]',
                'acme.test:25',
              ])
            : hostileText(rng),
        ]);
        return {
          surface: 'finder',
          method: 'GET',
          path: `/v1/email-finder${query(rng, params)}`,
          headers: [],
          body: Buffer.alloc(0),
          auth: 'secret',
        };
      },
    ],
    [
      6,
      () => ({
        surface: 'domain',
        method: 'GET',
        path: `/v1/email-finder/domain/${hostileParam(rng, rng.chance(0.5) ? labDomain(rng) : rng.pick([hostileText(rng), 'https://acme.test/x', '127.0.0.1', '[::1]', 'localhost', 'a'.repeat(300), 'xn--', '.', 'rebind.test']))}`,
        headers: [],
        body: Buffer.alloc(0),
        auth: 'secret',
      }),
    ],
    [
      6,
      () =>
        rng.weighted<FuzzCase>([
          [
            2,
            () => ({
              surface: 'credits',
              method: 'GET',
              path: `/v1/credits/usage${query(rng, [
                ['from', rng.pick(DATES)],
                ['to', rng.pick(DATES)],
              ])}`,
              headers: [],
              body: Buffer.alloc(0),
              auth: 'secret',
            }),
          ],
          [
            2,
            () => ({
              surface: 'credits',
              method: 'GET',
              path: `/v1/credits/transactions${query(rng, [
                ['page', rng.pick(NUMBERS)],
                ['limit', rng.pick(NUMBERS)],
              ])}`,
              headers: [],
              body: Buffer.alloc(0),
              auth: 'secret',
            }),
          ],
          [
            1,
            () => ({
              surface: 'credits',
              method: 'GET',
              path: `/v1/lists${query(rng, [
                ['page', rng.pick(NUMBERS)],
                ['limit', rng.pick(NUMBERS)],
              ])}`,
              headers: [],
              body: Buffer.alloc(0),
              auth: 'secret',
            }),
          ],
          [
            1,
            () => ({
              surface: 'credits',
              method: rng.pick(['GET', 'DELETE']),
              path: `/v1/lists/${hostileParam(rng, ids(rng, 'lst'))}${
                rng.chance(0.5)
                  ? `/results${query(rng, [
                      ['format', rng.pick(['csv', 'json', 'xml', ''])],
                      ['status', rng.pick(['valid', 'unknown', 'x'])],
                      ['page', rng.pick(NUMBERS)],
                    ])}`
                  : ''
              }`,
              headers: [],
              body: Buffer.alloc(0),
              auth: 'secret',
            }),
          ],
        ]),
    ],
    [
      2,
      () =>
        jsonCase(
          rng,
          'feedback',
          'POST',
          '/v1/email-validation/feedback',
          { email: address(rng), outcome: rng.pick(['delivered', 'bounced', 'maybe']) },
          'secret',
        ),
    ],
    [6, () => hostileHeaders(rng)],
    [3, () => nullField(rng)],
    [3, () => nullArgument(rng)],
  ]);
}
