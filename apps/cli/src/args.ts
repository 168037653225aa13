import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { Status } from '@mailguard/verdict';
import { FORMATS, type Format } from './output';
import type { Source } from './input';

export const USAGE = `Usage: mailguard verify <email>... | - | --file PATH  [--format F] [--concurrency N] [--fail-on V]
       mailguard find --first NAME --last NAME --domain DOMAIN   (or --full "NAME" --domain DOMAIN)
       mailguard domain <name>
       mailguard mcp
       mailguard doctor [--json]
       mailguard admin accounts [--email TEXT] [--page N] [--limit N] | grant <account> <amount> --reason R
                     | suspend <account> --reason R | unsuspend <account> | erase <account> [--yes]
                     | audit [--account ID]   (each with --json)
       mailguard --help | --version

verify   checks each address (syntax, domain, MX, SMTP mailbox ping, disposable, role, catch-all,
         domain age, SPF/DKIM/DMARC) and prints its verdict, in input order.
  <email>...           the addresses; "-" reads them from stdin, as --file does
  --file PATH          one address per line, or a CSV with a header row whose email column is found as
                       the API finds it (--email-column, else a header named email/e-mail/mail, else the
                       first column of addresses); PATH "-" is stdin
  --email-column NAME  the CSV column holding the addresses
  --format F           text (default): a line per address; json: one array of API results; jsonl: one
                       result per line; csv: the input's columns, then status, reason, confidence,
                       reachable, is_free, is_role, is_disposable, is_catch_all, suggestion, score,
                       sub_status (the API's list download)
  --json               the same as --format json
  --concurrency N      addresses in flight, 1 to 500 (default 16; 200 with --remote, in calls of 100)
  --fail-on V          exit 1 when any address is V or worse: invalid, or risky (risky or invalid)
find     the likeliest address of a person at a domain (the API's email finder)
domain   what the domain's mail servers tell: catch-all, address pattern, provider, MX
         find and domain print text, or the API's JSON with --format json
doctor   whether the internet's mail servers will talk to this prober, for each egress (SMTP_EGRESS):
         outbound port 25 (PROBER_CANARIES), the public address, its PTR and that the name resolves
         back, the HELO name, SPF of SMTP_MAIL_FROM's domain, DNS blocklists (DNSBL_ZONES); each
         failing line says what to do. --json: the report as JSON. Exit status 0 when nothing fails.
mcp      serves the MailGuard tools to an MCP client on stdio: with MAILGUARD_API_URL and MAILGUARD_API_KEY
         through that service (metered like its REST API), else with the engine in this process (unmetered)

admin    the operator console of the service at MAILGUARD_API_URL, with ADMIN_TOKEN: list accounts (--email
         matches any part of the address), grant credits (a negative amount takes them back, never below
         zero), suspend (keys, widget keys and sessions refused, running lists paused) and unsuspend an
         account, erase one (its addresses, lists, results, keys and members; the ledger stays anonymised:
         asks for the account id on a terminal, else needs --yes), read the audit log. --json: the API's JSON

  --remote URL         verify, find and domain ask the MailGuard service at URL through its REST API,
                       with the key in MAILGUARD_API_KEY (metered; 429 waits for Retry-After), instead
                       of the engine in this process
A progress bar with an ETA is drawn on stderr when it is a terminal; stdout carries results only.
Exit status: 0 done; 1 a --fail-on verdict was seen, or the run failed; 2 bad usage or configuration.
The engine honours the variables of docs/configuration.md (DNS_SERVERS, SMTP_PORT, SMTP_HELO_NAME, ALLOW_PRIVATE_MX, …).
`;

/** Bad usage: exit status 2, with the message and a pointer to --help. */
export class UsageError extends Error {}

/** The statuses --fail-on can name: every one worse than valid. */
export type Verdict = Exclude<Status, 'valid'>;

interface Common {
  remote: string | null;
  format: Format;
}

export type Command =
  | { name: 'help' }
  | { name: 'version' }
  | { name: 'mcp' }
  | { name: 'doctor'; json: boolean }
  | (Common & { name: 'verify'; source: Source; concurrency: number | null; failOn: Verdict | null })
  | (Common & { name: 'find'; query: { firstName?: string; lastName?: string; fullName?: string; domain?: string } })
  | (Common & { name: 'domain'; domain: string })
  | { name: 'admin'; json: boolean; action: AdminAction };

/** What `mailguard admin` asks of the operator console. */
export type AdminAction =
  | { kind: 'accounts'; email: string | null; page: number | null; limit: number | null }
  | { kind: 'grant'; account: string; amount: number; reason: string }
  | { kind: 'suspend'; account: string; reason: string }
  | { kind: 'unsuspend'; account: string; reason: string | null }
  | { kind: 'erase'; account: string; yes: boolean; reason: string | null }
  | { kind: 'audit'; account: string | null; page: number | null; limit: number | null };

const COMMON = {
  remote: { type: 'string' },
  format: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

/** `node:util` parseArgs, strict: an unknown flag or a missing value is bad usage, never an address. */
function parse<O extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: O) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true, tokens: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message.split('\n')[0] : String(error));
  }
}

function common(values: { remote?: string; format?: string }, formats: readonly Format[]): Common {
  const format = (values.format ?? 'text') as Format;
  if (!formats.includes(format))
    throw new UsageError(`--format takes ${formats.join(', ')} (got ${JSON.stringify(values.format)})`);
  if (values.remote !== undefined && !/^https?:\/\/[^\s/]+/i.test(values.remote))
    throw new UsageError(`--remote takes an http(s) URL (got ${JSON.stringify(values.remote)})`);
  return { format, remote: values.remote ?? null };
}

function verify(args: string[]): Command {
  const { values, positionals, tokens } = parse(args, {
    ...COMMON,
    file: { type: 'string' },
    'email-column': { type: 'string' },
    json: { type: 'boolean' },
    concurrency: { type: 'string' },
    'fail-on': { type: 'string' },
  });
  if (values.help) return { name: 'help' };
  if (values.json && values.format !== undefined && values.format !== 'json')
    throw new UsageError('--json and --format disagree');
  const options = common({ ...values, format: values.json ? 'json' : values.format }, FORMATS);
  let concurrency: number | null = null;
  if (values.concurrency !== undefined) {
    concurrency = Number(values.concurrency);
    if (!/^\d+$/.test(values.concurrency) || concurrency < 1 || concurrency > 500)
      throw new UsageError('--concurrency takes a whole number from 1 to 500');
  }
  const failOn = values['fail-on'] ?? null;
  if (failOn !== null && failOn !== 'invalid' && failOn !== 'risky')
    throw new UsageError(`--fail-on takes invalid or risky (got ${JSON.stringify(failOn)})`);
  // "-" means stdin only before a "--": after it every argument is an address.
  const afterTerminator = tokens.findIndex((token) => token.kind === 'option-terminator');
  const stdin = tokens.some(
    (token, index) =>
      token.kind === 'positional' && token.value === '-' && (afterTerminator < 0 || index < afterTerminator),
  );
  const emails = stdin ? positionals.filter((value) => value !== '-') : positionals;
  const file = stdin ? '-' : (values.file ?? null);
  if (file !== null && (emails.length > 0 || (stdin && values.file !== undefined)))
    throw new UsageError('give addresses, or --file, or - (stdin): one of them');
  if (file === null && emails.length === 0)
    throw new UsageError('no address given (arguments, --file PATH, or - for stdin)');
  if (values['email-column'] !== undefined && file === null)
    throw new UsageError('--email-column names a column of --file');
  if (values['email-column'] !== undefined && values['email-column'].trim() === '')
    throw new UsageError('--email-column takes a column name');
  const source: Source =
    file === null
      ? { kind: 'arguments', emails }
      : { kind: 'file', path: file, emailColumn: values['email-column'] ?? null };
  return { name: 'verify', ...options, source, concurrency, failOn };
}

function find(args: string[]): Command {
  const { values, positionals } = parse(args, {
    ...COMMON,
    first: { type: 'string' },
    last: { type: 'string' },
    full: { type: 'string' },
    domain: { type: 'string' },
  });
  if (values.help) return { name: 'help' };
  if (positionals.length > 0)
    throw new UsageError(`find takes --first, --last (or --full) and --domain, not ${JSON.stringify(positionals[0])}`);
  if (values.domain === undefined) throw new UsageError('find needs --domain');
  if (values.full === undefined && (values.first === undefined || values.last === undefined))
    throw new UsageError('find needs --first and --last, or --full');
  const query = { firstName: values.first, lastName: values.last, fullName: values.full, domain: values.domain };
  return { name: 'find', ...common(values, ['text', 'json']), query };
}

function domain(args: string[]): Command {
  const { values, positionals } = parse(args, COMMON);
  if (values.help) return { name: 'help' };
  if (positionals.length !== 1) throw new UsageError('domain takes one domain name');
  return { name: 'domain', ...common(values, ['text', 'json']), domain: positionals[0] };
}

function wholeNumber(flag: string, value: string | undefined): number | null {
  if (value === undefined) return null;
  if (!/^\d{1,9}$/.test(value) || Number(value) < 1) throw new UsageError(`${flag} takes a whole number from 1`);
  return Number(value);
}

function admin(args: string[]): Command {
  const [kind, ...rest] = args;
  // A negative amount ("grant acc_x -50") is a value, not a flag: moved past "--" for parseArgs.
  const negative = rest.filter((arg) => /^-\d+$/.test(arg));
  const { values, positionals } = parse([...rest.filter((arg) => !/^-\d+$/.test(arg)), '--', ...negative], {
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
    email: { type: 'string' },
    page: { type: 'string' },
    limit: { type: 'string' },
    reason: { type: 'string' },
    account: { type: 'string' },
    yes: { type: 'boolean' },
  });
  if (values.help) return { name: 'help' };
  const json = values.json ?? false;
  const one = (what: string): string => {
    if (positionals.length !== 1) throw new UsageError(`admin ${kind} takes ${what}`);
    return positionals[0];
  };
  const reason = (required: boolean): string | null => {
    if (values.reason === undefined && required) throw new UsageError(`admin ${kind} needs --reason`);
    if (values.reason !== undefined && values.reason.trim() === '') throw new UsageError('--reason takes some text');
    return values.reason ?? null;
  };
  const paging = { page: wholeNumber('--page', values.page), limit: wholeNumber('--limit', values.limit) };
  switch (kind) {
    case 'accounts':
      if (positionals.length > 0) throw new UsageError('admin accounts takes --email, --page and --limit only');
      return { name: 'admin', json, action: { kind, email: values.email ?? null, ...paging } };
    case 'grant': {
      if (positionals.length !== 2) throw new UsageError('admin grant takes an account id and an amount');
      const [account, amount] = positionals;
      if (!/^-?\d{1,10}$/.test(amount) || Number(amount) === 0)
        throw new UsageError('the amount is a whole number of credits, not 0 (negative takes credits back)');
      return { name: 'admin', json, action: { kind, account, amount: Number(amount), reason: reason(true) as string } };
    }
    case 'suspend':
      return { name: 'admin', json, action: { kind, account: one('an account id'), reason: reason(true) as string } };
    case 'unsuspend':
      return { name: 'admin', json, action: { kind, account: one('an account id'), reason: reason(false) } };
    case 'erase':
      return {
        name: 'admin',
        json,
        action: { kind, account: one('an account id'), yes: values.yes ?? false, reason: reason(false) },
      };
    case 'audit':
      if (positionals.length > 0) throw new UsageError('admin audit takes --account, --page and --limit only');
      return { name: 'admin', json, action: { kind, account: values.account ?? null, ...paging } };
    case undefined:
      throw new UsageError('admin needs a command: accounts, grant, suspend, unsuspend, erase or audit');
    default:
      throw new UsageError(`unknown admin command ${JSON.stringify(kind)}`);
  }
}

/** The command line, or UsageError. */
export function parseCommand(argv: string[]): Command {
  const [name, ...rest] = argv;
  switch (name) {
    case '--help':
    case '-h':
    case 'help':
      return { name: 'help' };
    case '--version':
    case '-v':
      return { name: 'version' };
    case 'verify':
      return verify(rest);
    case 'find':
      return find(rest);
    case 'domain':
      return domain(rest);
    case 'doctor': {
      const { values, positionals } = parse(rest, { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } });
      if (values.help) return { name: 'help' };
      if (positionals.length > 0)
        throw new UsageError(`doctor takes --json only, not ${JSON.stringify(positionals[0])}`);
      return { name: 'doctor', json: values.json ?? false };
    }
    case 'admin':
      return admin(rest);
    case 'mcp':
      if (rest.length > 0)
        throw new UsageError('mcp takes no arguments (it reads MAILGUARD_API_URL and MAILGUARD_API_KEY)');
      return { name: 'mcp' };
    case undefined:
      throw new UsageError('no command given');
    default:
      throw new UsageError(`unknown command ${JSON.stringify(name)}`);
  }
}
