import { isIP } from 'node:net';

/** Raised once at start-up when the environment holds values the service cannot run with. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/**
 * Reads variables and collects every problem instead of stopping at the first,
 * so one start-up tells the operator everything that is wrong.
 */
export class EnvReader {
  readonly problems: string[] = [];

  constructor(private readonly env: Env) {}

  private raw(name: string): string | undefined {
    const value = this.env[name];
    if (value === undefined) return undefined;
    const trimmed = value.trim();
    return trimmed === '' ? undefined : trimmed;
  }

  private fail<T>(name: string, expected: string, got: string, fallback: T): T {
    this.problems.push(`${name} must be ${expected} (got ${JSON.stringify(got)})`);
    return fallback;
  }

  string(name: string, fallback: string): string;
  string(name: string, fallback: null): string | null;
  string(name: string, fallback: string | null): string | null {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    // Configuration values end up in SMTP commands and headers: no control characters, ever.
    if (/[\x00-\x1f\x7f]/.test(value)) return this.fail(name, 'free of control characters', value, fallback);
    return value;
  }

  int(name: string, fallback: number, min: number, max: number): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      return this.fail(name, `an integer from ${min} to ${max}`, value, fallback);
    }
    return Number(value);
  }

  bool(name: string, fallback: boolean): boolean {
    const value = this.raw(name)?.toLowerCase();
    if (value === undefined) return fallback;
    if (['true', '1', 'yes', 'on'].includes(value)) return true;
    if (['false', '0', 'no', 'off'].includes(value)) return false;
    return this.fail(name, 'true or false', value, fallback);
  }

  url(name: string, protocols: string[], fallback: null): URL | null;
  url(name: string, protocols: string[], fallback: string): URL;
  url(name: string, protocols: string[], fallback: string | null): URL | null {
    const value = this.raw(name) ?? fallback;
    if (value === null) return null;
    // A connection string may carry a password: never echo one back.
    const shown = value.includes('@') ? '<redacted>' : value;
    let parsed: URL;
    try {
      parsed = new URL(value);
    } catch {
      return this.fail(name, `a URL (${protocols.join(', ')})`, shown, null);
    }
    if (!protocols.includes(parsed.protocol)) {
      return this.fail(name, `a URL with scheme ${protocols.join(' or ')}`, shown, null);
    }
    return parsed;
  }

  /** `ip[:port]` list; IPv6 with a port is written `[::1]:53`. Returns the form Node's resolver takes. */
  dnsServers(name: string): string[] | null {
    const value = this.raw(name);
    if (value === undefined) return null;
    const servers: string[] = [];
    for (const item of value.split(',').map((s) => s.trim())) {
      const server = parseServer(item);
      if (!server) return this.fail(name, 'a comma list of ip[:port] (e.g. 127.0.0.53:53,[::1]:53)', value, null);
      servers.push(server);
    }
    return servers;
  }

  hostname(name: string, fallback: string): string {
    const value = this.string(name, fallback);
    if (!isHostname(value)) return this.fail(name, 'a host name such as mail.example.com', value, fallback);
    return value.toLowerCase();
  }
}

function parseServer(item: string): string | null {
  let host = item;
  let port = '53';
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(item);
  if (bracketed) {
    host = bracketed[1];
    port = bracketed[2] ?? port;
  } else if (isIP(item) !== 6) {
    const parts = item.split(':');
    if (parts.length > 2) return null;
    host = parts[0];
    port = parts[1] ?? port;
  }
  const family = isIP(host);
  const portNumber = Number(port);
  if (!family || !/^\d+$/.test(port) || portNumber < 1 || portNumber > 65535) return null;
  return family === 6 ? `[${host}]:${portNumber}` : `${host}:${portNumber}`;
}

export function isHostname(value: string): boolean {
  if (value.length > 253) return false;
  return value.split('.').every((label) => /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i.test(label));
}
