import { isIP } from 'node:net';
import type { AppConfig, Canary, PublicIpLookup } from '@mailguard/config';
import { createResolver, lookupFailure, type DnsResolver } from '@mailguard/dns';
import { isPublicAddress } from '@mailguard/net';
import { replyLine, SmtpSession, type Egress } from '@mailguard/smtp';
import { queryDnsbl } from './dnsbl';
import { askPublicAddress } from './public-ip';
import type { DoctorCheck, DoctorReport, EgressReport } from './report';
import { checkSpf } from './spf';

export interface DoctorOptions {
  egresses: Egress[];
  resolver: DnsResolver;
  heloName: string;
  mailFrom: string;
  smtpPort: number;
  canaries: Canary[];
  /** PUBLIC_IP: the address of every egress that does not know its own (not a proxy's). */
  publicIp: string | null;
  publicIpLookup: PublicIpLookup[];
  dnsblZones: string[];
  allowPrivate: boolean;
  /** Per network step (a connection, a banner, an answer). */
  timeoutMs: number;
  /** Gives up (shutdown): what has not answered by then fails. */
  signal?: AbortSignal;
}

const PORT_25_FIX =
  'port 25 blocked? Ask your provider to open outbound port 25 for this host, or use a SOCKS5 egress that has it (SMTP_EGRESS=socks5://user:pass@host:port)';

function check(name: string, status: DoctorCheck['status'], detail: string, fix: string | null = null): DoctorCheck {
  return { name, status, detail, fix };
}

function reason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === 'ENOTFOUND' || code === 'ENODATA') return 'no such name';
  return error instanceof Error ? error.message : String(error);
}

/** The addresses of a name (IPv4 first), or of an address itself. */
async function addresses(resolver: DnsResolver, host: string): Promise<string[]> {
  if (isIP(host)) return [host];
  const [v4, v6] = await Promise.all(
    [resolver.resolve4(host), resolver.resolve6(host)].map((lookup) => lookup.catch(() => [] as string[])),
  );
  if (v4.length + v6.length === 0) await resolver.resolve4(host);
  return [...v4, ...v6];
}

/** Outbound port 25: a banner from any canary counts. */
async function port25(options: DoctorOptions, egress: Egress): Promise<DoctorCheck> {
  const seen: string[] = [];
  const refused: string[] = [];
  for (const canary of options.canaries) {
    const port = canary.port ?? options.smtpPort;
    let targets: string[];
    try {
      targets = (await addresses(options.resolver, canary.host)).filter(
        (address) =>
          (options.allowPrivate || isPublicAddress(address)) && (!egress.family || isIP(address) === egress.family),
      );
    } catch (error) {
      seen.push(`${canary.host}: cannot resolve it (${reason(error)})`);
      continue;
    }
    if (targets.length === 0) {
      seen.push(`${canary.host}: no public address`);
      continue;
    }
    try {
      const { session, banner } = await SmtpSession.open({
        host: canary.host,
        address: targets[0],
        port,
        timeoutMs: options.timeoutMs,
        connector: egress.connector,
        signal: options.signal,
      });
      if (banner.code >= 200 && banner.code < 300) {
        session.quit();
        return check('port25', 'pass', `${canary.host} (${targets[0]}:${port}) greeted: ${replyLine(banner)}`);
      }
      // A 4xx/5xx greeting closed the session itself; anything else odd is closed here.
      if (banner.code < 400) session.close();
      refused.push(`${canary.host}: ${replyLine(banner)}`);
    } catch (error) {
      seen.push(`${canary.host} (${targets[0]}:${port}): ${reason(error)}`);
    }
  }
  if (refused.length > 0)
    return check(
      'port25',
      'fail',
      `port 25 is open, but the canaries turned this address away: ${refused.join('; ')}`,
      'the address has a bad reputation: see the blocklist checks below, ask the providers to delist it, or go out through another egress',
    );
  const unresolved = seen.length > 0 && seen.every((line) => line.includes('cannot resolve it'));
  return check(
    'port25',
    'fail',
    `no canary greeted: ${seen.join('; ') || 'no canaries (PROBER_CANARIES)'}`,
    unresolved
      ? `this host cannot resolve the canaries' names: check DNS first (DNS_SERVERS, or the system's resolvers), then outbound port 25. ${PORT_25_FIX}`
      : PORT_25_FIX,
  );
}

/** The egress's public address: its own, PUBLIC_IP, or what a resolver sees it come from. */
async function publicAddress(
  options: DoctorOptions,
  egress: Egress,
): Promise<{ ip: string | null; check: DoctorCheck }> {
  const local = egress.localAddress;
  if (local && (options.allowPrivate || isPublicAddress(local)))
    return { ip: local, check: check('public_ip', 'pass', `${local}, the address the egress binds`) };
  // A proxy's address is its own: PUBLIC_IP describes this host.
  if (options.publicIp && !egress.id.startsWith('socks5:'))
    return { ip: options.publicIp, check: check('public_ip', 'pass', `${options.publicIp}, from PUBLIC_IP`) };
  const tried: string[] = [];
  for (const lookup of options.publicIpLookup) {
    try {
      const [server] = await addresses(options.resolver, lookup.server);
      const ip = await askPublicAddress(
        egress.connector,
        server,
        lookup.port,
        lookup.name,
        options.timeoutMs,
        options.signal,
      );
      return { ip, check: check('public_ip', 'pass', `${ip}, as ${lookup.name}@${lookup.server} sees it`) };
    } catch (error) {
      tried.push(`${lookup.name}@${lookup.server}: ${reason(error)}`);
    }
  }
  return {
    ip: null,
    check: check(
      'public_ip',
      'fail',
      `cannot tell the public address (${tried.join('; ') || 'no PUBLIC_IP_LOOKUP'})`,
      'set PUBLIC_IP to the address this host sends from, or PUBLIC_IP_LOOKUP to a resolver that tells it (name@server)',
    ),
  };
}

/** PTR, forward confirmation and HELO: what receivers check of who connects. */
async function identity(options: DoctorOptions, ip: string): Promise<DoctorCheck[]> {
  const { resolver, heloName } = options;
  let names: string[] = [];
  const checks: DoctorCheck[] = [];
  try {
    names = (await resolver.reverse(ip)).map((name) => name.replace(/\.$/, '').toLowerCase());
  } catch (error) {
    if (lookupFailure(error) === 'error')
      checks.push(
        check(
          'ptr',
          'warn',
          `cannot tell: the PTR look-up of ${ip} failed (${reason(error)})`,
          'check that the resolvers (DNS_SERVERS) answer reverse look-ups, then run the self-check again',
        ),
      );
  }
  if (checks.length === 0) {
    checks.push(
      names.length > 0
        ? check('ptr', 'pass', `${ip} → ${names.join(', ')}`)
        : check(
            'ptr',
            'fail',
            `${ip} has no PTR record (reverse DNS): Gmail, Microsoft and most receivers refuse such senders`,
            `set the PTR of ${ip} to ${heloName} (with whoever owns the address: your cloud or ISP)`,
          ),
    );
  }
  if (names.length === 0) {
    checks.push(check('fcrdns', 'skipped', 'no PTR name to confirm'));
  } else {
    const confirmed: string[] = [];
    const elsewhere: string[] = [];
    for (const name of names) {
      const found = await addresses(resolver, name).catch(() => [] as string[]);
      if (found.includes(ip)) confirmed.push(name);
      else elsewhere.push(`${name} → ${found.join(', ') || 'nothing'}`);
    }
    checks.push(
      confirmed.length > 0
        ? check('fcrdns', 'pass', `${confirmed[0]} resolves back to ${ip}`)
        : check(
            'fcrdns',
            'fail',
            `the PTR name does not resolve back to ${ip} (${elsewhere.join('; ')})`,
            `add an A record ${names[0]} → ${ip}, or set the PTR of ${ip} to a name that resolves to it`,
          ),
    );
  }
  const helo = await addresses(resolver, heloName).catch(() => [] as string[]);
  if (!helo.includes(ip))
    checks.push(
      check(
        'helo',
        'fail',
        `SMTP_HELO_NAME ${heloName} resolves to ${helo.join(', ') || 'nothing'}, not to ${ip}`,
        names[0]
          ? `add an A record ${heloName} → ${ip}, or set SMTP_HELO_NAME=${names[0]} (the PTR name)`
          : `add an A record ${heloName} → ${ip}`,
      ),
    );
  else if (names.length > 0 && !names.includes(heloName))
    checks.push(
      check(
        'helo',
        'warn',
        `${heloName} resolves to ${ip}, but the PTR name is ${names[0]}: some receivers want the two equal`,
        `set SMTP_HELO_NAME=${names[0]}, or the PTR of ${ip} to ${heloName}`,
      ),
    );
  else checks.push(check('helo', 'pass', `${heloName} resolves to ${ip}`));
  return checks;
}

async function spf(options: DoctorOptions, ip: string): Promise<DoctorCheck> {
  const domain = options.mailFrom.slice(options.mailFrom.lastIndexOf('@') + 1).toLowerCase();
  const outcome = await checkSpf(options.resolver, { ip, domain, sender: options.mailFrom, helo: options.heloName });
  const mechanism = isIP(ip) === 6 ? `ip6:${ip}` : `ip4:${ip}`;
  const record = outcome.record ? ` (${outcome.record})` : '';
  switch (outcome.result) {
    case 'pass':
      return check('spf', 'pass', `the SPF record of ${domain} permits ${ip} (${outcome.mechanism ?? 'pass'})`);
    case 'fail':
    case 'softfail':
      return check(
        'spf',
        'fail',
        `the SPF record of ${domain} does not permit ${ip}: ${outcome.result}${record}`,
        `add ${mechanism} to the SPF record of ${domain}, before its "all"`,
      );
    case 'none':
      return check(
        'spf',
        'warn',
        `${domain} (SMTP_MAIL_FROM's domain) publishes no SPF record`,
        `publish a TXT record on ${domain}: "v=spf1 ${mechanism} -all"`,
      );
    case 'neutral':
      return check(
        'spf',
        'warn',
        `the SPF record of ${domain} says nothing of ${ip} (neutral)${record}`,
        `add ${mechanism} to the SPF record of ${domain}`,
      );
    case 'permerror':
      return check(
        'spf',
        'fail',
        `the SPF record of ${domain} is broken: ${outcome.problem ?? 'permerror'}${record}`,
        `repair the SPF record of ${domain} (receivers treat a broken record as none or as a failure)`,
      );
    case 'temperror':
      return check(
        'spf',
        'warn',
        `cannot tell: ${outcome.problem ?? 'a DNS look-up failed'}`,
        `check that ${domain} and the names its SPF record includes answer, then run the self-check again`,
      );
  }
}

async function dnsbl(options: DoctorOptions, ip: string, zone: string): Promise<DoctorCheck> {
  const name = `dnsbl:${zone}`;
  const outcome = await queryDnsbl(options.resolver, ip, zone);
  switch (outcome.status) {
    case 'clear':
      return check(name, 'pass', `${ip} is not listed`);
    case 'listed':
      return check(
        name,
        'fail',
        `${ip} is listed (${outcome.codes.join(', ')})${outcome.reason ? `: ${outcome.reason}` : ''}`,
        `fix what got it listed, then ask ${zone} to delist it (the reason names where); meanwhile route through another egress`,
      );
    case 'refused':
      return check(
        name,
        'warn',
        `cannot tell: ${zone} refused the query (${outcome.codes.join(', ')}), as it does through public or shared resolvers`,
        `ask ${zone} through a resolver of your own (DNS_SERVERS), or use the list's own access for its subscribers`,
      );
    case 'error':
      return check(
        name,
        'warn',
        'cannot tell: the look-up failed',
        `check that the resolvers (DNS_SERVERS) reach ${zone}, then run the self-check again`,
      );
  }
}

async function checkEgress(options: DoctorOptions, egress: Egress): Promise<EgressReport> {
  const [port, address] = await Promise.all([port25(options, egress), publicAddress(options, egress)]);
  const checks = [port, address.check];
  const ip = address.ip;
  if (!ip) {
    for (const name of ['ptr', 'fcrdns', 'helo', 'spf', ...options.dnsblZones.map((zone) => `dnsbl:${zone}`)])
      checks.push(check(name, 'skipped', 'the public address is not known'));
    return { id: egress.id, publicIp: null, checks };
  }
  const [who, sender, ...lists] = await Promise.all([
    identity(options, ip),
    spf(options, ip),
    ...options.dnsblZones.map((zone) => dnsbl(options, ip, zone)),
  ]);
  return { id: egress.id, publicIp: ip, checks: [...checks, ...who, sender, ...lists] };
}

/**
 * docs/production.md: whether the internet's mail servers will talk to this prober, egress by egress —
 * port 25, public address, PTR and its confirmation, HELO, SPF and blocklists — each failing or
 * warning line with what to do.
 */
export async function runDoctor(options: DoctorOptions): Promise<DoctorReport> {
  const egress = await Promise.all(options.egresses.map((item) => checkEgress(options, item)));
  return {
    ok: egress.every((item) => item.checks.every((entry) => entry.status !== 'fail')),
    checkedAt: new Date().toISOString(),
    egress,
  };
}

/** Per network step of a self-check: a report comes within seconds even where nothing answers. */
const STEP_TIMEOUT_MS = 5_000;

/** The self-check with a process's configuration (the CLI's `doctor`, and the probing processes). */
export function selfCheck(config: AppConfig, egresses: Egress[], signal?: AbortSignal): Promise<DoctorReport> {
  return runDoctor({
    egresses,
    resolver: createResolver({ servers: config.dns.servers, timeoutMs: 2_000, tries: 1 }),
    heloName: config.smtp.heloName,
    mailFrom: config.smtp.mailFrom,
    smtpPort: config.smtp.port,
    canaries: config.prober.canaries,
    publicIp: config.prober.publicIp,
    publicIpLookup: config.prober.publicIpLookup,
    dnsblZones: config.prober.dnsblZones,
    allowPrivate: config.smtp.allowPrivateMx,
    timeoutMs: STEP_TIMEOUT_MS,
    signal,
  });
}
