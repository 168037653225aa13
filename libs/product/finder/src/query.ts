import { AppError } from '@mailguard/errors';
import { parseName, registrableDomain, type PersonName } from './names';

const MAX_PARAM = 200;

/** What a finder call names (docs/api.md endpoint #9): firstName and lastName, or fullName, and a domain or URL. */
export interface FinderQuery {
  firstName?: string;
  lastName?: string;
  fullName?: string;
  domain?: string;
}

/** The person and the domain of a finder call, or 400 with what is missing (every surface: REST, MCP, CLI). */
export function parseFinderQuery(query: FinderQuery): { name: PersonName; domain: string } {
  const { firstName, lastName, fullName, domain: domainParam } = query;
  for (const value of [firstName, lastName, fullName, domainParam]) {
    if (value !== undefined && (typeof value !== 'string' || value.length > MAX_PARAM))
      throw new AppError('bad_request', `Parameters are single strings of at most ${MAX_PARAM} characters`);
  }
  const name = parseName({ firstName, lastName, fullName });
  if (!name) throw new AppError('bad_request', 'Give firstName and lastName, or fullName, with letters in them');
  const domain = domainParam ? registrableDomain(domainParam) : null;
  if (!domain) throw new AppError('bad_request', 'Give domain: a company domain or URL');
  return { name, domain };
}

/** The domain of a domain-insight call (docs/api.md endpoint #10), or 400. */
export function parseDomainParam(param: string): string {
  const domain = param.length <= MAX_PARAM ? registrableDomain(param) : null;
  if (!domain) throw new AppError('bad_request', 'Give a domain such as acme.com (or a URL)');
  return domain;
}
