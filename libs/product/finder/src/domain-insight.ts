import type { DomainModel } from '@mailguard/scoring';
import type { FinderDeps } from './finder';

/** `GET /v1/email-finder/domain/:domain` (docs/api.md endpoint #10), with the number of addresses the pattern rests on. */
export interface DomainInsight {
  domain: string;
  /** null when the server could not be asked (no mail, down, greylisting). */
  catchAll: boolean | null;
  pattern: string | null;
  provider: string | null;
  mx: Array<{ exchange: string; priority: number }>;
  /** 0–100: the learned pattern's share at the domain; 0 while none is learned. */
  confidence: number;
  addresses: number;
}

/**
 * What is known about a domain: its MX and provider from DNS, catch-all from one SMTP probe
 * (the postmaster, which RFC 5321 requires, and the made-up address the prober adds to tell
 * catch-all), and the address pattern learned from its verified addresses, finder hits and feedback.
 */
export async function domainInsight(
  { engine, probe }: FinderDeps,
  domain: string,
  model: DomainModel,
): Promise<DomainInsight> {
  // Within the check deadline, as every answer of the API (CHECK_DEADLINE_MS).
  const deadlineAt = Date.now() + engine.options.deadlineMs;
  const inspection = await engine.inspect(`postmaster@${domain}`, { deadlineAt });
  const facts = inspection.facts;
  // A server is asked only while its catch-all is not known (the domain's facts are cached): insight is free, but not to the MX.
  const known = facts?.catchAll ?? null;
  const outcomes =
    inspection.needsProbe && known === null ? await probe({ inspections: [inspection], deadlineAt }) : null;
  const outcome = outcomes?.[0] ?? null;
  return {
    domain: inspection.domain || domain,
    catchAll: known ?? outcome?.probe.catchAll ?? null,
    pattern: model.pattern,
    provider: facts?.provider ?? null,
    mx: facts && facts.mail.status === 'ok' && !facts.mail.nullMx ? facts.mail.records : [],
    confidence: model.confidence,
    addresses: model.addresses,
  };
}
