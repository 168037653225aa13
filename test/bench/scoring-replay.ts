import { isRoleLocalPart } from '@mailguard/email';
import { catchAllConfidence, learnDomain, regimeOf, type Evidence, type Regime } from '@mailguard/scoring';
import type { Address, Population } from './scoring-populations';
import type { Outcome } from './scoring-report';

/**
 * The scoring bench without the network: every address of a population concluded the way the
 * scoring stage concludes it (libs/product/feedback/src/domain-knowledge.ts), in the bench's order and
 * batches of 100 — each batch sees the avatar evidence and the queried addresses the earlier ones left — then half of each
 * domain's addresses reported back and the held-out half concluded again. Deterministic, so that
 * unit tests and the calibration fit can use it; `npm run bench:scoring` does the same through
 * the running gateway (where concurrent checks move its figures by about ±0.002, and names learned
 * reach the scoring within a minute, DomainKnowledge.named, where the replay uses them at the next batch).
 */
export interface Scored {
  address: Address;
  /** Σ of the signals' weights: the log-odds before calibration. */
  logit: number;
  /** Which calibration map turned it into the confidence. */
  regime: Regime;
  confidence: number;
}

const BATCH = 100;
const existing = (evidence: Evidence[]) =>
  evidence.filter((item) => item.outcome === 'exists').map((item) => item.localPart);

export function replay(population: Population): { before: Scored[]; after: Scored[] } {
  const evidence = new Map<string, Evidence[]>();
  const queries = new Map<string, string[]>();
  const known = (domain: string) => evidence.get(domain) ?? [];
  const asked = (domain: string) => queries.get(domain) ?? [];
  const conclude = (address: Address, domainEvidence: Evidence[], elsewhere: string[], queried: string[]): Scored => {
    const facts = population.domains[address.domain];
    const result = catchAllConfidence({
      localPart: address.localPart,
      role: isRoleLocalPart(address.localPart),
      gravatar: address.avatar,
      spf: facts.spf,
      dmarc: facts.dmarc,
      ageDays: facts.ageDays,
      providerAcceptsAll: false,
      domain: learnDomain(domainEvidence, elsewhere, queried),
    });
    const logit = result.signals.reduce((sum, { weight }) => sum + weight, 0);
    return { address, logit, regime: regimeOf(result.signals), confidence: result.confidence };
  };
  const before: Scored[] = [];
  for (let i = 0; i < population.addresses.length; i += BATCH) {
    const batch = population.addresses.slice(i, i + BATCH);
    const snapshot = new Map(
      [...new Set(batch.map((a) => a.domain))].map((domain) => [domain, [known(domain), asked(domain)] as const]),
    );
    const elsewhere = existing([...evidence.values()].flat());
    before.push(
      ...batch.map((address) => {
        const [domainEvidence, queried] = snapshot.get(address.domain) as readonly [Evidence[], string[]];
        return conclude(address, domainEvidence, elsewhere, queried);
      }),
    );
    // Every address checked at a catch-all domain is recorded as queried there (DomainKnowledge.learn).
    for (const address of batch) queries.set(address.domain, [...asked(address.domain), address.localPart]);
    // At a catch-all domain an address with an avatar teaches the pattern (role addresses do not).
    for (const address of batch.filter((a) => a.avatar && !isRoleLocalPart(a.localPart))) {
      if (known(address.domain).some((item) => item.localPart === address.localPart)) continue;
      evidence.set(address.domain, [
        ...known(address.domain),
        { localPart: address.localPart, outcome: 'exists', source: 'avatar', pattern: null },
      ]);
    }
  }
  const reports = new Map<string, Evidence[]>();
  for (const address of population.addresses.filter((a) => a.fed)) {
    const outcome = address.real ? 'exists' : 'bounced';
    reports.set(address.domain, [
      ...(reports.get(address.domain) ?? []),
      { localPart: address.localPart, outcome, source: 'feedback', pattern: null },
    ]);
  }
  const elsewhere = existing([...evidence.values(), ...reports.values()].flat());
  const after = population.addresses
    .filter((a) => !a.fed)
    .map((address) =>
      conclude(
        address,
        [...known(address.domain), ...(reports.get(address.domain) ?? [])],
        elsewhere,
        asked(address.domain),
      ),
    );
  return { before, after };
}

/** What the report judges of each scored address. */
export const outcome = (scored: Scored[]): Outcome[] =>
  scored.map(({ address, confidence }) => ({
    real: address.real,
    confidence,
    kind: address.kind,
    avatar: address.avatar,
  }));
