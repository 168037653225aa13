import type { EnvReader } from './env-reader';

/** Where the service's own mail (password resets, invitations) goes: an SMTP relay. */
export interface MailRelayConfig {
  host: string;
  port: number;
  /** `smtps://`: TLS from the first byte; `smtp://`: plain, upgraded with STARTTLS when the relay offers it. */
  secure: boolean;
  user: string | null;
  password: string | null;
  /** The sender address of every message. */
  from: string;
}

/** Sign-in for people (docs/api.md#accounts-sessions-and-members): cookies and the mail that carries one-time links. */
export interface LoginConfig {
  /** false only for plain-HTTP development: the session cookie is then sent without `Secure`. */
  cookieSecure: boolean;
  /** null: password resets and invitations are not sent (logged instead). */
  mailRelay: MailRelayConfig | null;
  /** The origin people reach the service at (links in mail point there); required with a mail relay. */
  publicUrl: string | null;
}

const ADDRESS = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9.-]+$/;

export function readLoginConfig(read: EnvReader): LoginConfig {
  const cookieSecure = read.bool('COOKIE_SECURE', true);
  const relay = read.url('MAIL_RELAY_URL', ['smtp:', 'smtps:'], null);
  const from = read.string('MAIL_FROM', null);
  const publicUrl = read.url('PUBLIC_URL', ['http:', 'https:'], null);
  if (from !== null && !ADDRESS.test(from))
    read.problems.push(`MAIL_FROM must be a plain address such as noreply@example.com (got ${JSON.stringify(from)})`);
  if (publicUrl && (publicUrl.pathname !== '/' || publicUrl.search || publicUrl.hash || publicUrl.username))
    read.problems.push('PUBLIC_URL must be an origin only, such as https://mailguard.example.com');
  let mailRelay: MailRelayConfig | null = null;
  if (relay) {
    if (from === null)
      read.problems.push('MAIL_RELAY_URL needs MAIL_FROM: the sender of password resets and invitations');
    // A link built from the request's Host header could be pointed elsewhere by whoever asks for it.
    if (!publicUrl) read.problems.push('MAIL_RELAY_URL needs PUBLIC_URL: the origin the links in its mail point to');
    const secure = relay.protocol === 'smtps:';
    mailRelay = {
      host: relay.hostname.replace(/^\[|\]$/g, ''),
      port: relay.port ? Number(relay.port) : secure ? 465 : 25,
      secure,
      user: relay.username ? decodeURIComponent(relay.username) : null,
      password: relay.password ? decodeURIComponent(relay.password) : null,
      from: from ?? '',
    };
  }
  return { cookieSecure, mailRelay, publicUrl: publicUrl ? publicUrl.origin : null };
}
