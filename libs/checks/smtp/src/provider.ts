import type { ProviderId } from '@mailguard/config';

/**
 * Mail providers recognised from MX host names. `acceptsAll`: the provider answers 250 to every
 * RCPT whatever the mailbox (it bounces later), so an accepted RCPT there proves nothing. `fleet`:
 * one fleet of hosts serves every domain of the provider, so a refusal of our address at one of
 * its domains holds at all (not so for gateways each customer runs with rules of its own, nor for
 * hosting whose host names belong to the customers' own servers).
 */
interface Provider {
  id: ProviderId;
  mx: RegExp;
  acceptsAll?: boolean;
  fleet?: boolean;
}

const PROVIDERS = [
  { id: 'google', mx: /(^|\.)(google|googlemail)\.com$/, fleet: true },
  { id: 'outlook', mx: /\.olc\.protection\.outlook\.com$/, fleet: true },
  { id: 'microsoft', mx: /\.mail\.protection\.outlook\.com$|(^|\.)outlook\.com$/, fleet: true },
  { id: 'yahoo', mx: /(^|\.)yahoodns\.net$|(^|\.)yahoo\.com$/, acceptsAll: true, fleet: true },
  { id: 'icloud', mx: /(^|\.)(icloud|me)\.com$/, fleet: true },
  { id: 'proofpoint', mx: /(^|\.)(pphosted|ppe-hosted)\.com$/ },
  { id: 'mimecast', mx: /(^|\.)mimecast(-offshore)?\.(com|co\.za)$/ },
  { id: 'barracuda', mx: /(^|\.)barracudanetworks\.com$/ },
  { id: 'cisco', mx: /(^|\.)iphmx\.com$/ },
  { id: 'zoho', mx: /(^|\.)zoho(mail)?\.(com|eu|in|com\.au)$/, fleet: true },
  { id: 'fastmail', mx: /(^|\.)messagingengine\.com$/, fleet: true },
  { id: 'protonmail', mx: /(^|\.)protonmail\.ch$/, fleet: true },
  { id: 'yandex', mx: /(^|\.)yandex\.(net|ru)$/, fleet: true },
  { id: 'mailru', mx: /(^|\.)mail\.ru$/, fleet: true },
  { id: 'gmx', mx: /(^|\.)(gmx\.(net|de|com)|web\.de)$/, fleet: true },
  { id: 'amazon', mx: /(^|\.)amazonaws\.com$/ },
  { id: 'ovh', mx: /(^|\.)ovh\.net$/ },
  { id: 'ionos', mx: /(^|\.)(ionos\.[a-z.]+|kundenserver\.de|1and1\.[a-z.]+)$/ },
] satisfies Provider[];

/** Fails to compile while a provider the configuration names has no MX rule here. */
const _everyProvider: Exclude<ProviderId, (typeof PROVIDERS)[number]['id']> extends never ? true : never = true;

/** The provider of the first MX host that is recognised, or null. */
export function detectProvider(mxHosts: string[]): string | null {
  for (const host of mxHosts) {
    const provider = PROVIDERS.find((candidate) => candidate.mx.test(host.toLowerCase()));
    if (provider) return provider.id;
  }
  return null;
}

/** Whether one fleet of hosts serves all of the provider's domains (see Provider). */
export function providerRunsFleet(provider: string | null): boolean {
  return PROVIDERS.some((candidate) => candidate.id === provider && candidate.fleet === true);
}

export function providerAcceptsAll(provider: string | null): boolean {
  return PROVIDERS.some((candidate) => candidate.id === provider && candidate.acceptsAll === true);
}
