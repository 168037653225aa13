/**
 * Mail providers recognised from MX host names. `acceptsAll`: the provider answers 250 to every
 * RCPT whatever the mailbox (it bounces later), so an accepted RCPT there proves nothing.
 */
interface Provider {
  id: string;
  mx: RegExp;
  acceptsAll?: boolean;
}

const PROVIDERS: Provider[] = [
  { id: 'google', mx: /(^|\.)(google|googlemail)\.com$/ },
  { id: 'outlook', mx: /\.olc\.protection\.outlook\.com$/ },
  { id: 'microsoft', mx: /\.mail\.protection\.outlook\.com$|(^|\.)outlook\.com$/ },
  { id: 'yahoo', mx: /(^|\.)yahoodns\.net$|(^|\.)yahoo\.com$/, acceptsAll: true },
  { id: 'icloud', mx: /(^|\.)(icloud|me)\.com$/ },
  { id: 'proofpoint', mx: /(^|\.)(pphosted|ppe-hosted)\.com$/ },
  { id: 'mimecast', mx: /(^|\.)mimecast(-offshore)?\.(com|co\.za)$/ },
  { id: 'barracuda', mx: /(^|\.)barracudanetworks\.com$/ },
  { id: 'cisco', mx: /(^|\.)iphmx\.com$/ },
  { id: 'zoho', mx: /(^|\.)zoho(mail)?\.(com|eu|in|com\.au)$/ },
  { id: 'fastmail', mx: /(^|\.)messagingengine\.com$/ },
  { id: 'protonmail', mx: /(^|\.)protonmail\.ch$/ },
  { id: 'yandex', mx: /(^|\.)yandex\.(net|ru)$/ },
  { id: 'mailru', mx: /(^|\.)mail\.ru$/ },
  { id: 'gmx', mx: /(^|\.)(gmx\.(net|de|com)|web\.de)$/ },
  { id: 'amazon', mx: /(^|\.)amazonaws\.com$/ },
  { id: 'ovh', mx: /(^|\.)ovh\.net$/ },
  { id: 'ionos', mx: /(^|\.)(ionos\.[a-z.]+|kundenserver\.de|1and1\.[a-z.]+)$/ },
];

/** Every provider id the table knows (what SMTP_EGRESS may reserve an egress for). */
export const PROVIDER_IDS: readonly string[] = PROVIDERS.map((provider) => provider.id);

/** The provider of the first MX host that is recognised, or null. */
export function detectProvider(mxHosts: string[]): string | null {
  for (const host of mxHosts) {
    const provider = PROVIDERS.find((candidate) => candidate.mx.test(host.toLowerCase()));
    if (provider) return provider.id;
  }
  return null;
}

export function providerAcceptsAll(provider: string | null): boolean {
  return PROVIDERS.some((candidate) => candidate.id === provider && candidate.acceptsAll === true);
}
