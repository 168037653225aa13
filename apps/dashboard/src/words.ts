import type { Check, VerificationResult } from './api';

/** The verdict and reasons of docs/api.md#the-result-object in words a non-engineer can act on. */
export const VERDICT: Record<VerificationResult['status'], string> = {
  valid: 'Valid: safe to send',
  risky: 'Risky: may bounce or not be read',
  invalid: 'Invalid: do not send',
};

export const REASON: Record<string, string> = {
  accepted_email: 'The mail server accepted this mailbox.',
  rejected_email: 'The mail server said this mailbox does not exist.',
  invalid_syntax: 'This is not a well-formed email address.',
  invalid_domain: 'The domain does not exist.',
  no_mx: 'The domain cannot receive email.',
  disabled: 'The mailbox exists but has been disabled.',
  catch_all: 'The domain accepts every address, so this one cannot be confirmed.',
  disposable: 'A throwaway (disposable) address.',
  full_inbox: 'The mailbox is full.',
  role: 'A shared role address (like info@ or support@), not a person.',
  unknown: 'The mail server gave no clear answer; no credit was charged.',
};

export const SUB_STATUS: Record<string, string> = {
  timeout: 'the server was too slow to answer',
  greylisted: 'the server asked to try again later (greylisting)',
  sender_blocked: 'the server refuses our checking server',
  rate_limited: 'the server asked us to slow down',
  tls_failed: 'a secure connection was required and failed',
  mx_unreachable: 'no mail server of the domain could be reached',
  dns_error: 'the domain name lookup failed',
  smtputf8_unsupported: 'the server does not accept international addresses',
  address_literal: 'addresses at an IP address are never probed',
  unclassified: 'a refusal that says nothing about the mailbox',
  control_characters: 'it contains invisible control characters',
  too_long: 'it is too long',
  bad_local_part: 'the part before @ is malformed',
  bad_domain: 'the part after @ is malformed',
  no_such_user: 'no such user',
  disabled: 'the account is deactivated',
  null_mx: 'the domain declares that it takes no mail',
  no_mail_host: 'the domain has no mail server',
};

const yes = (value: unknown) => value === true;

/** What each of the nine checks found, as [title, finding, passed?] (passed null: neutral). */
export function describeChecks(checks: Record<string, Check>): Array<[string, string, boolean | null]> {
  const get = (name: string): Check => checks[name] ?? {};
  const syntax = get('syntax');
  const domain = get('domain');
  const mx = get('mx');
  const smtp = get('smtp');
  const catchAll = get('catchAll');
  const age = get('domainAge');
  const auth = get('authentication') as {
    spf?: { present?: boolean };
    dkim?: { present?: boolean };
    dmarc?: { present?: boolean; policy?: string | null };
  };
  const records = (mx.records as Array<{ exchange: string }> | undefined) ?? [];
  const present = [
    auth.spf?.present && 'SPF',
    auth.dkim?.present && 'DKIM',
    auth.dmarc?.present && `DMARC${auth.dmarc.policy ? ` (${auth.dmarc.policy})` : ''}`,
  ].filter(Boolean);
  return [
    [
      'Format',
      yes(syntax.valid) ? 'The address is written correctly.' : 'The address is not written correctly.',
      yes(syntax.valid),
    ],
    ['Domain', yes(domain.exists) ? 'The domain exists.' : 'The domain does not exist.', yes(domain.exists)],
    [
      'Mail servers',
      yes(mx.valid)
        ? `The domain has ${records.length || 'an implicit'} mail server${records.length === 1 ? '' : 's'}${mx.provider ? ` (${String(mx.provider)})` : ''}.`
        : 'The domain has no mail server.',
      yes(mx.valid),
    ],
    [
      'Mailbox',
      !yes(smtp.checked)
        ? 'The mail server was not asked.'
        : `The mail server answered ${String(smtp.code ?? '—')}${smtp.message ? `: "${String(smtp.message)}"` : ''}.`,
      yes(smtp.checked) ? Number(smtp.code) >= 200 && Number(smtp.code) < 300 : null,
    ],
    [
      'Disposable',
      yes(get('disposable').value) ? 'A throwaway email provider.' : 'Not a throwaway provider.',
      !yes(get('disposable').value),
    ],
    [
      'Role',
      yes(get('role').value) ? 'A shared role address, not a person.' : 'A personal address, not a role.',
      !yes(get('role').value),
    ],
    [
      'Catch-all',
      yes(catchAll.value)
        ? `The domain accepts any address${catchAll.confidence === null || catchAll.confidence === undefined ? '' : `; ${String(catchAll.confidence)}% likely to be delivered`}.`
        : 'The domain does not accept just any address.',
      !yes(catchAll.value),
    ],
    [
      'Domain age',
      typeof age.ageDays === 'number'
        ? `The domain was registered ${Math.floor(age.ageDays / 365)} years ago (${age.ageDays} days).`
        : 'The registration date is unknown.',
      null,
    ],
    [
      'Sender authentication',
      present.length ? `The domain publishes ${present.join(', ')}.` : 'The domain publishes no SPF, DKIM or DMARC.',
      present.length > 0,
    ],
  ];
}
