/**
 * The mail providers the prober recognises by their MX hosts (libs/checks/smtp's provider table says how).
 * Named here, where SMTP_EGRESS is read: an egress may be reserved for one of them.
 */
export const PROVIDER_IDS = [
  'google',
  'outlook',
  'microsoft',
  'yahoo',
  'icloud',
  'proofpoint',
  'mimecast',
  'barracuda',
  'cisco',
  'zoho',
  'fastmail',
  'protonmail',
  'yandex',
  'mailru',
  'gmx',
  'amazon',
  'ovh',
  'ionos',
] as const;

export type ProviderId = (typeof PROVIDER_IDS)[number];

export function isProviderId(name: string): name is ProviderId {
  return (PROVIDER_IDS as readonly string[]).includes(name);
}
