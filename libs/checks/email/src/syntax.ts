import { isIP } from 'node:net';
import { domainToASCII, domainToUnicode } from 'node:url';

/**
 * RFC 5321 mailbox syntax as a receiving server checks it on RCPT TO (docs/api.md#verdict-rules): a dot-atom or
 * quoted local part of at most 64 octets (non-ASCII allowed, RFC 6531), a domain of LDH labels whose last is
 * not all digits (IDN given as U-labels, converted to A-labels) or an address literal, 254 octets overall.
 * Agreement with the isemail test suite is measured in syntax-isemail.spec.ts (fixtures/README.md).
 * Anything with a control character is refused here, so it can never reach an SMTP socket.
 */

export interface ValidAddress {
  valid: true;
  /** Normalised: local part as given (unquoted when it can be), domain lower-case Unicode. */
  email: string;
  localPart: string;
  /** Lower-case Unicode form, as shown to clients. */
  domain: string;
  /** A-label form used for DNS and SMTP. */
  asciiDomain: string;
  /** `local@asciiDomain` (the local part quoted when it must be): what goes into RCPT TO. */
  smtpAddress: string;
  /** `[1.2.3.4]` or `[IPv6:…]`: passes syntax, never probed. */
  addressLiteral: boolean;
  /** The local part holds non-ASCII characters: probing needs the server's SMTPUTF8. */
  needsSmtpUtf8: boolean;
}

/** What kind of syntax failure it is (docs/api.md#substatus `subStatus` of `invalid_syntax`). */
export type SyntaxProblem = 'control_characters' | 'too_long' | 'bad_local_part' | 'bad_domain';

export interface InvalidAddress {
  valid: false;
  email: string;
  localPart: string;
  domain: string;
  problem: string;
  kind: SyntaxProblem;
}

export type SyntaxResult = ValidAddress | InvalidAddress;

const MAX_LOCAL_OCTETS = 64;
const MAX_DOMAIN_OCTETS = 253;
const MAX_PATH_OCTETS = 254;

// atext of RFC 5322 plus any non-ASCII character (RFC 6531 UTF8-non-ascii).
const ATOM = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~\u0080-\u{10FFFF}-]+$/u;
// Any C0/C1 control, DEL, or a Unicode line/paragraph separator.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/u;
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
// Half of a UTF-16 pair on its own: no character at all (with /u, whole pairs never match).
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
// Characters no one can see or that reorder what is shown (format characters such as U+200B, U+FEFF, U+202E; spaces but
// the ASCII one, which quoting allows): RFC 6531 does not exclude them, no mailbox has them, and they would go on the wire.
// The joiners U+200C/U+200D stay: Persian and Indic names and emoji sequences are written with them.
const INVISIBLE = /(?![ \u200C\u200D])[\p{Cf}\p{Zs}]/u;
// Once IDNA's width folding is done (NFKC), an ASCII character in a domain is a letter, digit, hyphen or dot.
const NOT_IN_DOMAIN = /[^a-z0-9.\u0080-\u{10FFFF}-]/u;

const octets = (value: string) => Buffer.byteLength(value, 'utf8');

function isDotAtom(value: string): boolean {
  return value.length > 0 && value.split('.').every((atom) => ATOM.test(atom));
}

/**
 * The content of an RFC 5321 quoted string (RFC 6531 adds non-ASCII text): null when it is not one, or a
 * problem when a backslash escapes something other than printable ASCII (quoted-pairSMTP).
 */
function unquote(value: string): { inner: string } | string | null {
  if (value.length < 2 || !value.startsWith('"') || !value.endsWith('"')) return null;
  let inner = '';
  for (let i = 1; i < value.length - 1; i++) {
    const char = value[i];
    if (char === '\\') {
      const next = value[++i];
      if (i === value.length - 1) return null;
      if (!/[\x20-\x7e]/.test(next)) return 'a backslash in a quoted local part escapes only printable ASCII';
      inner += next;
    } else if (char === '"') {
      return null;
    } else {
      inner += char;
    }
  }
  return { inner };
}

function quote(value: string): string {
  return `"${value.replace(/(["\\])/g, '\\$1')}"`;
}

function checkLocal(local: string): { localPart: string; wire: string } | string {
  if (local.length === 0) return 'the local part is empty';
  if (isDotAtom(local)) return { localPart: local, wire: local };
  const quoted = unquote(local);
  if (quoted === null) {
    if (local.startsWith('.') || local.endsWith('.')) return 'the local part starts or ends with a dot';
    if (local.includes('..')) return 'the local part has two dots in a row';
    if (/[()]/.test(local)) return 'comments are not allowed';
    return 'the local part has characters that need quoting';
  }
  if (typeof quoted === 'string') return quoted;
  // A quoted string whose content is a valid dot-atom means the same mailbox unquoted. `""` is a
  // mailbox RFC 5321 allows (an empty quoted string): the server is the one to say it has none.
  if (isDotAtom(quoted.inner)) return { localPart: quoted.inner, wire: quoted.inner };
  return { localPart: quote(quoted.inner), wire: quote(quoted.inner) };
}

const HEX_GROUP = /^[0-9a-f]{1,4}$/i;

/**
 * RFC 5321's IPv6-addr: eight groups, or at most six around one `::` (which stands for two or more),
 * an IPv4 tail counting as two groups. No zone id, no other form `isIP` would take.
 */
function isIPv6Literal(text: string): boolean {
  const tail = text.lastIndexOf(':');
  const ipv4 = text.slice(tail + 1);
  // The dotted tail stands in for the last two groups.
  const hex = ipv4.includes('.') ? (isIP(ipv4) === 4 ? `${text.slice(0, tail + 1)}0:0` : '') : text;
  const halves = hex.split('::');
  const groups = (half: string) => (half === '' ? [] : half.split(':'));
  if (halves.length > 2 || !halves.flatMap(groups).every((group) => HEX_GROUP.test(group))) return false;
  const count = halves.flatMap(groups).length;
  return halves.length === 2 ? count <= 6 : count === 8;
}

function checkLiteral(domain: string): string | null {
  const body = domain.slice(1, -1);
  if (/^ipv6:/i.test(body)) return isIPv6Literal(body.slice(5)) ? null : 'the IPv6 address literal is malformed';
  return isIP(body) === 4 ? null : 'the address literal is malformed';
}

function checkDomain(unicodeDomain: string): { ascii: string } | string {
  if (unicodeDomain.length === 0) return 'the domain is empty';
  if (unicodeDomain.endsWith('.')) return 'the domain ends with a dot';
  if (unicodeDomain.startsWith('.') || unicodeDomain.includes('..')) return 'the domain has an empty label';
  if (unicodeDomain.includes('_')) return 'the domain has an underscore';
  // URL parsing would stop at `/ \\ ? #` and drop the rest: `example.com/evil` is junk, not example.com.
  if (NOT_IN_DOMAIN.test(unicodeDomain.normalize('NFKC').toLowerCase()))
    return 'the domain has a character that is not allowed in a domain name';
  // Hyphens at label edges are refused before IDNA, which would silently accept some.
  if (unicodeDomain.split('.').some((label) => label.startsWith('-') || label.endsWith('-'))) {
    return 'a domain label starts or ends with a hyphen';
  }
  const ascii = domainToASCII(unicodeDomain);
  if (!ascii) return 'the domain is not a valid (internationalised) domain name';
  if (octets(ascii) > MAX_DOMAIN_OCTETS) return 'the domain is longer than 253 octets';
  const labels = ascii.split('.');
  if (!labels.every((label) => LABEL.test(label)))
    return 'the domain has a label that is not letters, digits and inner hyphens';
  // No top-level domain is all digits (RFC 3696 §2): `1.2.3.4` unbracketed is an IP address, not a domain.
  // A single label passes: whether such a name takes mail (`user@io`) is for DNS to say.
  if (/^\d+$/.test(labels[labels.length - 1])) return 'the top-level domain is all digits';
  return { ascii };
}

/**
 * An invalid address is answered and stored as given, but for what no text can hold: control
 * characters and lone surrogates become U+FFFD (Postgres refuses NUL; clients would echo the rest).
 */
export function printable(value: string): string {
  return value.replace(new RegExp(`${CONTROL.source}|${LONE_SURROGATE.source}`, 'gu'), '\uFFFD');
}

/** A value typed or pasted by someone: surrounding spaces and tabs are theirs, not the address's. */
export function parseAddress(input: string): SyntaxResult {
  // Only spaces and tabs are trimmed: a CR or LF anywhere makes the address invalid.
  return checkMailbox(input.replace(/^[ \t]+|[ \t]+$/g, ''));
}

/** The rule on an address exactly as written (the isemail test suite runs it as such). */
export function checkMailbox(address: string): SyntaxResult {
  const at = address.lastIndexOf('@');
  const rawLocal = at >= 0 ? address.slice(0, at) : address;
  const rawDomain = at >= 0 ? address.slice(at + 1) : '';
  const invalid = (problem: string, kind: SyntaxProblem): InvalidAddress => ({
    valid: false,
    email: printable(address),
    localPart: printable(rawLocal),
    domain: printable(rawDomain.toLowerCase()),
    problem,
    kind,
  });
  const tooLong = (problem: string) => invalid(problem, 'too_long');

  if (CONTROL.test(address)) return invalid('the address contains a control character', 'control_characters');
  if (LONE_SURROGATE.test(address))
    return invalid('the address contains a broken character (a lone UTF-16 surrogate)', 'control_characters');
  if (at < 0) return invalid('the address has no @', 'bad_domain');
  if (address.includes(' ') && !rawLocal.startsWith('"'))
    return invalid('the address contains a space', rawDomain.includes(' ') ? 'bad_domain' : 'bad_local_part');
  if (INVISIBLE.test(rawLocal))
    return invalid('the local part contains an invisible or direction-changing character', 'bad_local_part');

  const local = checkLocal(rawLocal);
  if (typeof local === 'string') return invalid(local, 'bad_local_part');
  // RFC 5321's 64 octets are the local part as written, quotes and escapes included.
  if (octets(rawLocal) > MAX_LOCAL_OCTETS) return tooLong('the local part is longer than 64 octets');

  if (rawDomain.startsWith('[') && rawDomain.endsWith(']')) {
    const problem = checkLiteral(rawDomain);
    if (problem) return invalid(problem, 'bad_domain');
    const domain = rawDomain.toLowerCase().replace(/^\[ipv6:/, '[IPv6:');
    const smtpAddress = `${local.wire}@${domain}`;
    if (octets(smtpAddress) > MAX_PATH_OCTETS) return tooLong('the address is longer than 254 octets');
    return {
      valid: true,
      email: `${local.localPart}@${domain}`,
      localPart: local.localPart,
      domain,
      asciiDomain: domain,
      smtpAddress,
      addressLiteral: true,
      needsSmtpUtf8: /[^\x00-\x7f]/.test(local.wire),
    };
  }

  const domainCheck = checkDomain(rawDomain.toLowerCase());
  if (typeof domainCheck === 'string')
    return invalid(domainCheck, domainCheck.includes('longer than') ? 'too_long' : 'bad_domain');
  const unicodeDomain = domainToUnicode(domainCheck.ascii);
  const smtpAddress = `${local.wire}@${domainCheck.ascii}`;
  if (octets(smtpAddress) > MAX_PATH_OCTETS) return tooLong('the address is longer than 254 octets');
  return {
    valid: true,
    email: `${local.localPart}@${unicodeDomain}`,
    localPart: local.localPart,
    domain: unicodeDomain,
    asciiDomain: domainCheck.ascii,
    smtpAddress,
    addressLiteral: false,
    needsSmtpUtf8: /[^\x00-\x7f]/.test(local.wire),
  };
}
