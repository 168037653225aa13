import { isIP } from 'node:net';
import { lookupFailure, type DnsResolver, type LookupFailure } from '@mailguard/dns';
import { inNetwork, parseAddress, reversedLabels, type Address } from './address';

/** RFC 7208 §2.6. */
export type SpfResult = 'pass' | 'fail' | 'softfail' | 'neutral' | 'none' | 'permerror' | 'temperror';

export interface SpfQuery {
  /** The client's address (the prober's public IP); an IPv4-mapped IPv6 address counts as IPv4. */
  ip: string;
  /** The domain whose policy applies: the MAIL FROM domain, or the HELO name. */
  domain: string;
  /** The MAIL FROM address; without a local part it is `postmaster@` its domain (or `domain`). */
  sender: string;
  /** The HELO/EHLO name, for %{h}. */
  helo: string;
}

export interface SpfOutcome {
  result: SpfResult;
  /** The SPF record of `domain` itself; null when there is none, or not exactly one. */
  record: string | null;
  /**
   * The directive that decided the result, as written: an `include:` for what its domain passed,
   * for a `redirect=` the directive matched in the record redirected to; null when none matched.
   */
  mechanism: string | null;
  /** DNS-querying terms evaluated (include, a, mx, ptr, exists, redirect), the one over the limit included. */
  lookups: number;
  /** For permerror and temperror: what is wrong, in a sentence. */
  problem: string | null;
}

/** RFC 7208 §4.6.4. */
const MAX_LOOKUPS = 10;
const MAX_VOID_LOOKUPS = 2;
const MAX_MX_HOSTS = 10;
const MAX_PTR_NAMES = 10;

/** A permerror or temperror: evaluation stops wherever it is (§4.6). */
class SpfError extends Error {
  constructor(
    readonly result: 'permerror' | 'temperror',
    message: string,
  ) {
    super(message);
  }
}

const permerror = (message: string) => new SpfError('permerror', message);
/** `what` names the look-up, e.g. "a:mail.example.com: the DNS look-up". */
const temperror = (what: string, name: string, error: unknown) =>
  new SpfError('temperror', `${what} of ${name} failed (${(error as NodeJS.ErrnoException | null)?.code ?? 'error'})`);

/**
 * lookupFailure(), and a name DNS cannot carry (c-ares refuses "@", "%", "+" …, which macros can
 * put in a name) read as one that does not exist: asking again would not help.
 */
function failureOf(error: unknown): LookupFailure {
  return (error as NodeJS.ErrnoException | null)?.code === 'EBADNAME' ? 'nxdomain' : lookupFailure(error);
}

type MacroToken =
  | { kind: 'text'; text: string }
  | { kind: 'macro'; letter: string; escape: boolean; parts: number | null; reverse: boolean; delimiters: string };

/** macro-string of §7.1; c, r and t belong to exp= texts, which are not evaluated, so they are errors here. */
function parseMacroString(text: string): MacroToken[] {
  const pattern = /%(?:\{([slodiphv])(\d*)(r?)([.\-+,/_=]*)\}|([%_-]))|([\x21-\x24\x26-\x7e]+)/iy;
  const tokens: MacroToken[] = [];
  while (pattern.lastIndex < text.length) {
    const match = pattern.exec(text);
    if (!match) throw permerror(`bad macro in "${text}"`);
    const [, letter, digits, reverse, delimiters, escaped, literal] = match;
    if (literal !== undefined) tokens.push({ kind: 'text', text: literal });
    else if (escaped !== undefined) {
      tokens.push({ kind: 'text', text: { '%': '%', _: ' ', '-': '%20' }[escaped] as string });
    } else {
      if (digits && !/^[1-9]\d*$/.test(digits)) throw permerror(`bad macro transformer in "${text}"`);
      tokens.push({
        kind: 'macro',
        letter: letter.toLowerCase(),
        escape: letter !== letter.toLowerCase(),
        parts: digits ? Number(digits) : null,
        reverse: reverse !== '',
        delimiters: delimiters || '.',
      });
    }
  }
  return tokens;
}

/** domain-spec of §7.1: a macro-string that ends in a macro or in "." and a top label. */
function parseDomainSpec(text: string): MacroToken[] {
  const tokens = parseMacroString(text);
  const last = tokens.at(-1);
  const topLabel = /\.(?:[a-z0-9]*[a-z][a-z0-9]*|[a-z0-9]+-[a-z0-9-]*[a-z0-9])\.?$/i;
  if (!last || (last.kind === 'text' && !topLabel.test(text))) throw permerror(`"${text}" is not a domain`);
  return tokens;
}

type Qualifier = '+' | '-' | '~' | '?';
const QUALIFIED: Record<Qualifier, SpfResult> = { '+': 'pass', '-': 'fail', '~': 'softfail', '?': 'neutral' };

interface Directive {
  /** As written in the record. */
  text: string;
  qualifier: Qualifier;
  kind: 'all' | 'include' | 'a' | 'mx' | 'ptr' | 'ip4' | 'ip6' | 'exists';
  /** The target domain-spec; null for the current domain (and for all, ip4, ip6). */
  domain: MacroToken[] | null;
  /** ip4/ip6: the network. */
  network: Address | null;
  /** Prefix lengths by the client's family (a, mx, ip4, ip6). */
  prefix4: number;
  prefix6: number;
}

interface SpfRecord {
  directives: Directive[];
  redirect: { text: string; domain: MacroToken[] } | null;
}

function prefixLength(text: string | undefined, max: number): number {
  if (text === undefined) return max;
  if (!/^(0|[1-9]\d*)$/.test(text) || Number(text) > max) throw permerror(`bad prefix length /${text}`);
  return Number(text);
}

function parseDirective(term: string): Directive | null {
  const match = /^([+\-~?]?)(all|include|a|mx|ptr|ip4|ip6|exists)(?=$|[:/])(.*)$/is.exec(term);
  if (!match) return null;
  const qualifier = (match[1] || '+') as Qualifier;
  const kind = match[2].toLowerCase() as Directive['kind'];
  const argument = match[3];
  const directive: Directive = { text: term, qualifier, kind, domain: null, network: null, prefix4: 32, prefix6: 128 };
  switch (kind) {
    case 'all':
      if (argument) throw permerror(`"${term}" takes no argument`);
      return directive;
    case 'include':
    case 'exists':
    case 'ptr': {
      if (!argument && kind === 'ptr') return directive;
      if (!argument.startsWith(':')) throw permerror(`"${term}" needs a domain`);
      return { ...directive, domain: parseDomainSpec(argument.slice(1)) };
    }
    case 'a':
    case 'mx': {
      const parts = /^(?::(.*?))?(?:\/([^/]*))?(?:\/\/(.*))?$/s.exec(argument);
      if (!parts) throw permerror(`bad "${term}"`);
      const [, domain, prefix4, prefix6] = parts;
      return {
        ...directive,
        domain: domain === undefined ? null : parseDomainSpec(domain),
        prefix4: prefixLength(prefix4, 32),
        prefix6: prefixLength(prefix6, 128),
      };
    }
    case 'ip4':
    case 'ip6': {
      const parts = /^:([^/]+)(?:\/(.*))?$/s.exec(argument);
      const family = kind === 'ip4' ? 4 : 6;
      if (!parts || isIP(parts[1]) !== family) throw permerror(`"${term}" does not name an IPv${family} network`);
      const network = parseAddress(parts[1]) as Address;
      const prefix = prefixLength(parts[2], family === 4 ? 32 : 128);
      // ip6 over IPv4-mapped space (::ffff:0:0/96) covers those IPv4 clients, as which they are evaluated.
      if (network.family === 4 && family === 6) return { ...directive, network, prefix4: Math.max(0, prefix - 96) };
      return { ...directive, network, prefix4: prefix, prefix6: prefix };
    }
  }
}

/** The terms of a record (§4.6.1); any syntax error anywhere makes the whole record a permerror. */
function parseRecord(record: string): SpfRecord {
  const parsed: SpfRecord = { directives: [], redirect: null };
  let exp = false;
  for (const term of record.split(' ').slice(1).filter(Boolean)) {
    const directive = parseDirective(term);
    if (directive) {
      parsed.directives.push(directive);
      continue;
    }
    const modifier = /^([a-z][a-z0-9_.-]*)=(.*)$/is.exec(term);
    if (!modifier) throw permerror(`unknown term "${term}"`);
    const name = modifier[1].toLowerCase();
    if (name === 'redirect') {
      if (parsed.redirect) throw permerror('redirect= given twice');
      parsed.redirect = { text: term, domain: parseDomainSpec(modifier[2]) };
    } else if (name === 'exp') {
      // Only its syntax matters: the explanation text of a fail is not part of the outcome.
      if (exp) throw permerror('exp= given twice');
      parseDomainSpec(modifier[2]);
      exp = true;
    } else {
      parseMacroString(modifier[2]);
    }
  }
  return parsed;
}

/** A multi-label name with no empty or over-long label (§4.3). */
function validDomain(domain: string): boolean {
  const labels = domain.replace(/\.$/, '').split('.');
  return domain.length <= 253 && labels.length > 1 && labels.every((label) => label.length > 0 && label.length <= 63);
}

const fullPrefix = (address: Address) => (address.family === 4 ? 32 : 128);

/** One check_host() evaluation with its limits, which span every include and redirect. */
class Evaluation {
  lookups = 0;
  private voidLookups = 0;
  private validatedNames: Promise<string[]> | null = null;
  private readonly ipText: string;
  private readonly local: string;
  private readonly senderDomain: string;
  private readonly helo: string;

  constructor(
    private readonly resolver: DnsResolver,
    private readonly ip: Address,
    query: SpfQuery,
    domain: string,
  ) {
    this.ipText = ip.family === 4 ? ip.bytes.join('.') : query.ip;
    const at = query.sender.lastIndexOf('@');
    this.senderDomain = (at >= 0 ? query.sender.slice(at + 1) : query.sender) || domain;
    this.local = at > 0 ? query.sender.slice(0, at) : 'postmaster';
    this.helo = query.helo;
  }

  /** The one SPF record of `domain` (§4.5); null when it has none. */
  async recordOf(domain: string): Promise<string | null> {
    let texts: string[][];
    try {
      texts = await this.resolver.resolveTxt(domain);
    } catch (error) {
      if (failureOf(error) !== 'error') return null;
      throw temperror('the SPF (TXT) look-up', domain, error);
    }
    const records = texts.map((chunks) => chunks.join('')).filter((text) => /^v=spf1( |$)/i.test(text));
    if (records.length > 1) throw permerror(`${domain} publishes ${records.length} SPF records`);
    return records[0] ?? null;
  }

  /** check_host() of an include or redirect target: errors are thrown, so pass, fail, softfail, neutral or none. */
  private async checkHost(domain: string): Promise<{ result: SpfResult; mechanism: string | null }> {
    const record = validDomain(domain) ? await this.recordOf(domain) : null;
    return record === null ? { result: 'none', mechanism: null } : this.evaluate(domain, record);
  }

  async evaluate(domain: string, record: string): Promise<{ result: SpfResult; mechanism: string | null }> {
    let parsed: SpfRecord;
    try {
      parsed = parseRecord(record);
    } catch (error) {
      throw permerror(`the SPF record of ${domain} is malformed: ${(error as Error).message}`);
    }
    for (const directive of parsed.directives) {
      if (await this.matches(directive, domain))
        return { result: QUALIFIED[directive.qualifier], mechanism: directive.text };
    }
    if (!parsed.redirect) return { result: 'neutral', mechanism: null };
    this.count(parsed.redirect.text);
    const target = await this.expandDomain(parsed.redirect.domain, domain);
    const redirected = await this.checkHost(target);
    if (redirected.result === 'none') throw permerror(`${parsed.redirect.text}: ${target} has no SPF record`);
    return redirected;
  }

  private count(term: string): void {
    if (++this.lookups > MAX_LOOKUPS) throw permerror(`more than ${MAX_LOOKUPS} DNS look-ups (${term})`);
  }

  /** A term's own query: no answer is a void look-up (§4.6.4), a failure a temperror. */
  private async lookup<T>(term: string, name: string, ask: () => Promise<T[]>): Promise<T[]> {
    try {
      const answers = await ask();
      if (answers.length > 0) return answers;
    } catch (error) {
      if (failureOf(error) === 'error') throw temperror(`${term}: the DNS look-up`, name, error);
    }
    if (++this.voidLookups > MAX_VOID_LOOKUPS) {
      throw permerror(`more than ${MAX_VOID_LOOKUPS} void DNS look-ups (${term})`);
    }
    return [];
  }

  /** A or AAAA, by the client's family (§5.3). */
  private addressesOf(name: string): Promise<string[]> {
    return this.ip.family === 4 ? this.resolver.resolve4(name) : this.resolver.resolve6(name);
  }

  private within(addresses: string[], prefix: number): boolean {
    return addresses.some((text) => {
      const address = parseAddress(text);
      return address !== null && inNetwork(this.ip, address, prefix);
    });
  }

  private async matches(directive: Directive, domain: string): Promise<boolean> {
    const prefix = this.ip.family === 4 ? directive.prefix4 : directive.prefix6;
    if (directive.kind === 'all') return true;
    if (directive.kind === 'ip4' || directive.kind === 'ip6') {
      return inNetwork(this.ip, directive.network as Address, prefix);
    }
    this.count(directive.text);
    const target = directive.domain ? await this.expandDomain(directive.domain, domain) : domain;
    switch (directive.kind) {
      case 'include': {
        const included = await this.checkHost(target);
        if (included.result === 'none') throw permerror(`${directive.text}: ${target} has no SPF record`);
        return included.result === 'pass';
      }
      case 'a':
        return this.within(await this.lookup(directive.text, target, () => this.addressesOf(target)), prefix);
      case 'mx': {
        const exchanges = await this.lookup(directive.text, target, () => this.resolver.resolveMx(target));
        // A null MX ("0 .") names no host.
        const hosts = exchanges.filter((mx) => mx.exchange !== '').sort((a, b) => a.priority - b.priority);
        for (const [index, { exchange }] of hosts.entries()) {
          if (index === MAX_MX_HOSTS) {
            throw permerror(`${directive.text}: ${target} has more than ${MAX_MX_HOSTS} MX hosts`);
          }
          const addresses = await this.addressesOf(exchange).catch((error: unknown) => {
            if (failureOf(error) === 'error') throw temperror(`${directive.text}: the DNS look-up`, exchange, error);
            return [];
          });
          if (this.within(addresses, prefix)) return true;
        }
        return false;
      }
      case 'ptr': {
        const names = await this.validated();
        return names.some((name) => name === target.toLowerCase() || name.endsWith(`.${target.toLowerCase()}`));
      }
      case 'exists':
        // Always A, whatever the client's family (§5.7).
        return (await this.lookup(directive.text, target, () => this.resolver.resolve4(target))).length > 0;
    }
  }

  /**
   * The client's PTR names that resolve back to it (§5.5), for ptr and %{p}. DNS errors here mean
   * "no match", never temperror, as §5.5 says.
   */
  private validated(): Promise<string[]> {
    this.validatedNames ??= (async () => {
      const names = await this.resolver.reverse(this.ipText).catch((): string[] => []);
      const confirmed: string[] = [];
      for (const name of names.slice(0, MAX_PTR_NAMES)) {
        const addresses = await this.addressesOf(name).catch((): string[] => []);
        if (this.within(addresses, fullPrefix(this.ip))) confirmed.push(name.toLowerCase().replace(/\.$/, ''));
      }
      return confirmed;
    })();
    return this.validatedNames;
  }

  /** A domain-spec expanded (§7), cut from the left to 253 characters (§4.8). */
  private async expandDomain(tokens: MacroToken[], domain: string): Promise<string> {
    let name = (await this.expand(tokens, domain)).replace(/\.$/, '');
    while (name.length > 253 && name.includes('.')) name = name.slice(name.indexOf('.') + 1);
    return name;
  }

  private async expand(tokens: MacroToken[], domain: string): Promise<string> {
    let text = '';
    for (const token of tokens) {
      if (token.kind === 'text') {
        text += token.text;
        continue;
      }
      const parts = (await this.macroValue(token.letter, domain)).split(
        new RegExp(`[${token.delimiters.replace(/[-\\\]^]/g, '\\$&')}]`),
      );
      if (token.reverse) parts.reverse();
      const value = parts.slice(token.parts === null ? 0 : -token.parts).join('.');
      // Upper-case letters ask for URL escaping (§7.3): everything but RFC 3986's unreserved characters.
      text += token.escape
        ? encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
        : value;
    }
    return text;
  }

  private async macroValue(letter: string, domain: string): Promise<string> {
    switch (letter) {
      case 's':
        return `${this.local}@${this.senderDomain}`;
      case 'l':
        return this.local;
      case 'o':
        return this.senderDomain;
      case 'd':
        return domain;
      case 'i':
        return reversedLabels(this.ip).reverse().join('.');
      case 'v':
        return this.ip.family === 4 ? 'in-addr' : 'ip6';
      case 'h':
        return this.helo;
      default: {
        // p: a validated name in the domain if there is one, else any, else "unknown" (§7.3).
        const names = await this.validated();
        const inDomain = names.find((name) => name === domain || name.endsWith(`.${domain}`));
        return inDomain ?? names[0] ?? 'unknown';
      }
    }
  }
}

/**
 * SPF's check_host() (RFC 7208 §4) for `ip` sending as `sender` from `domain`. The ptr mechanism
 * and %{p} are evaluated (PTR names confirmed by a forward look-up); exp= is checked for syntax only.
 */
export async function checkSpf(resolver: DnsResolver, query: SpfQuery): Promise<SpfOutcome> {
  const ip = parseAddress(query.ip);
  if (!ip) throw new TypeError(`not an IP address: ${query.ip}`);
  const domain = query.domain.replace(/\.$/, '');
  const evaluation = new Evaluation(resolver, ip, query, domain);
  let record: string | null = null;
  try {
    record = validDomain(domain) ? await evaluation.recordOf(domain) : null;
    if (record === null) return { result: 'none', record, mechanism: null, lookups: 0, problem: null };
    const { result, mechanism } = await evaluation.evaluate(domain, record);
    return { result, record, mechanism, lookups: evaluation.lookups, problem: null };
  } catch (error) {
    if (!(error instanceof SpfError)) throw error;
    return { result: error.result, record, mechanism: null, lookups: evaluation.lookups, problem: error.message };
  }
}
