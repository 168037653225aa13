/**
 * Confidence (0–100) that an address at a catch-all domain belongs to a real, read mailbox.
 *
 * A catch-all server accepts every RCPT, so SMTP cannot tell; what is left is evidence about the
 * address and the domain. The model is a logistic score: each signal adds a documented weight
 * in log-odds to a neutral prior (50%), and confidence is what that sum has meant on a labelled
 * population: calibrate(sum) (calibration.ts: fitted, monotonic, 1–99; one map per regime — flawed,
 * reported on, delivered itself, pattern learned, static), rounded. The static
 * signals below come first (the local part is read in local-part.ts); what the service has
 * learned about the domain (its address pattern, delivered and bounced reports: domain-model.ts)
 * adds its own. It is deterministic: the same
 * inputs and evidence always give the same confidence, and `signals` says what moved it.
 *
 * | signal | weight | why |
 * |---|---|---|
 * | `catch_all_prior` always | −1.3 | the base rate: at catch-all domains most made-up addresses look like names too (fitted on the lab's population, `npm run bench:scoring`) |
 * | `name_pattern` first.last / first_last / first-last with a known first name | +1.6 | the most common corporate pattern (until the domain's own pattern is learned — from addresses known to exist there or, before any report, from those queried there (domain-model.ts) — then `learned_pattern` says how person-like the address is there, and a common name in the wrong pattern earns nothing for being common) |
 * | `name_pattern` two alphabetic parts joined by . _ - | +0.3 | person-shaped, but as often a guess or a made-up name: where nothing is known about the domain, 46% real on the fitting population against 59% for a one-word name (it was +1.1, above those) |
 * | `name_pattern` a name with an initial (flast, f.last, firstl, lastf), a common given name or surname alone, names joined | +0.8 | common short patterns |
 * | `random_looking` many digits, digits inside or before letters, a short word that is no name before digits (`me58`), letter pairs no common name has, long consonant runs, hex-like | −1.6 | made-up or generated |
 * | `misspelt_name` two neighbouring letters swapped turn it into common names, or names learned from addresses known to exist (`jmaes.smith`, `jsmtih`), or a letter left out of a name of seven letters or more, in one part of two (`mia.fairweater`; names.ts, domain-model.ts) | −2.2 | the commonest slips in a form: mail to it bounces |
 * | `junk_word` test/asdf/qwerty/fake…, keyboard runs, a letter three times | −2.5 | what people type to get past a form |
 * | `long_unstructured` over 20 characters without separators | −0.8 | rarely a real mailbox |
 * | `role` a role local part | +0.4 | role mailboxes usually exist where catch-all is set |
 * | `gravatar` an avatar exists for the address | +1.8 | someone registered it |
 * | `authentication` SPF and DMARC both published | +0.3 | a domain that is run for mail |
 * | `domain_age` under 30 days / under a year / over 5 years | −0.8 / −0.3 / +0.3 | new domains are often throwaway |
 * | `provider_accepts_all` the provider accepts all RCPTs (Yahoo) | −0.4 | no server-side evidence at all |
 */

import { calibrate, regimeOf } from './calibration';
import { CALIBRATION_MAPS } from './calibration-map';
import { addressSignals, learnedPattern, patternRate, type DomainModel } from './domain-model';
import { localPartFlaws, nameShape, type Flaw, type NameShape } from './local-part';
import type { Signal } from './signal';

export interface CatchAllFeatures {
  localPart: string;
  role: boolean;
  gravatar: boolean | null;
  spf: boolean;
  dmarc: boolean;
  ageDays: number | null;
  providerAcceptsAll: boolean;
  /** What is known about the domain's addresses; null or absent: the static signals only. */
  domain?: DomainModel | null;
}

export interface CatchAllConfidence {
  confidence: number;
  signals: Signal[];
}

const NAME_WEIGHTS: Record<NameShape, number> = { first_last: 1.6, two_part: 0.3, short: 0.8 };
const FLAW_WEIGHTS: Record<Flaw, number> = {
  random_looking: -1.6,
  junk_word: -2.5,
  misspelt_name: -2.2,
  long_unstructured: -0.8,
};
const WEIGHTS = {
  catchAllPrior: -1.3,
  role: 0.4,
  gravatar: 1.8,
  authentication: 0.3,
  veryNewDomain: -0.8,
  newDomain: -0.3,
  oldDomain: 0.3,
  providerAcceptsAll: -0.4,
} as const;

function domainFacts(features: CatchAllFeatures): Signal[] {
  const signals: Signal[] = [];
  if (features.spf && features.dmarc) signals.push({ signal: 'authentication', weight: WEIGHTS.authentication });
  if (features.ageDays !== null) {
    if (features.ageDays < 30) signals.push({ signal: 'domain_age', weight: WEIGHTS.veryNewDomain });
    else if (features.ageDays < 365) signals.push({ signal: 'domain_age', weight: WEIGHTS.newDomain });
    else if (features.ageDays > 5 * 365) signals.push({ signal: 'domain_age', weight: WEIGHTS.oldDomain });
  }
  if (features.providerAcceptsAll) signals.push({ signal: 'provider_accepts_all', weight: WEIGHTS.providerAcceptsAll });
  return signals;
}

const logistic = (logit: number) => 1 / (1 + Math.exp(-logit));
const total = (signals: Signal[]) => signals.reduce((sum, { weight }) => sum + weight, 0);

export function catchAllConfidence(features: CatchAllFeatures): CatchAllConfidence {
  const local = features.localPart.toLowerCase().replace(/^"|"$/g, '').replace(/\+.*$/, '');
  const domain = features.domain ?? null;
  const shape = nameShape(local, domain?.names);
  const name: Signal | null = shape ? { signal: 'name_pattern', weight: NAME_WEIGHTS[shape] } : null;
  const pattern = domain ? learnedPattern(local, domain) : null;
  // What speaks for addresses like this one at this domain in general…
  const reading = pattern ?? name;
  const base: Signal[] = [
    { signal: 'catch_all_prior', weight: WEIGHTS.catchAllPrior },
    ...(reading ? [reading] : []),
    ...domainFacts(features),
  ];
  // …and what is particular to this address.
  const own: Signal[] = localPartFlaws(local, domain?.names).map((flaw) => ({
    signal: flaw,
    weight: FLAW_WEIGHTS[flaw],
  }));
  if (features.role) own.push({ signal: 'role', weight: WEIGHTS.role });
  if (features.gravatar) own.push({ signal: 'gravatar', weight: WEIGHTS.gravatar });
  if (domain) own.push(...addressSignals(local, domain));
  // Reports on the address's pattern at the domain turn the general part into an observed rate (domain-model.ts).
  const rate = domain ? patternRate(local, domain, logistic(total(base))) : null;
  const signals = [...(rate ? [rate] : base), ...own];
  const confidence = Math.round(calibrate(total(signals), CALIBRATION_MAPS[regimeOf(signals)]));
  return { confidence, signals };
}
