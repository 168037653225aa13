import type { Prober, VerificationEngine, VerificationResult } from '@mailguard/engine';
import type { DomainModel } from '@mailguard/scoring';
import type { PersonName } from './names';
import { candidates } from './patterns';

export interface FinderAnswer {
  email: string | null;
  /** 0–100: how likely the address reaches the person. */
  confidence: number;
  pattern: string | null;
  result: VerificationResult | null;
  alternatives: Array<{ email: string; confidence: number }>;
}

const NOTHING: FinderAnswer = { email: null, confidence: 0, pattern: null, result: null, alternatives: [] };
const CANDIDATES_PER_TRANSACTION = 3;

/**
 * What the finder and domain insight run on: the engine for what needs no SMTP session (DNS, the
 * verdict), and `probe` for what does: the smtp queue, so that with REDIS_URL only smtp-workers
 * connect to mail servers (the gateway's CheckPipeline.probe), or this process without one (the CLI).
 */
export interface FinderDeps {
  engine: VerificationEngine;
  probe: Prober;
}

/**
 * A person's professional address (docs/api.md endpoint #9). The candidates are asked in one SMTP probe
 * (one session where the server allows: three RCPT per transaction, the domain's learned pattern first, the made-up
 * address once, no more transactions after a yes): at a strict domain the first accepted
 * candidate wins with high confidence; at a catch-all domain no server can tell, so the candidate
 * with the highest catch-all confidence wins — the very confidence a check of that address gives,
 * with what the domain has taught (libs/checks/scoring/src/catch-all-confidence.ts).
 */
export async function findAddress(
  { engine, probe }: FinderDeps,
  name: PersonName,
  domain: string,
  model: DomainModel | null = null,
): Promise<FinderAnswer> {
  const list = candidates(name, model);
  // Within the check deadline, as every answer of the API (CHECK_DEADLINE_MS): one session asks every candidate.
  const deadlineAt = Date.now() + engine.options.deadlineMs;
  const inspections = await Promise.all(
    list.map((candidate) => engine.inspect(`${candidate.localPart}@${domain}`, { deadlineAt })),
  );
  if (!inspections[0].needsProbe) return NOTHING;
  // The likeliest three per transaction, and no more once the server accepts one: few RCPTs per person.
  // A server that greylists is asked again when that fits in the deadline (the one greylisting policy
  // of the smtp job): "come back later" is not "nobody". No outcomes by the deadline: nobody found.
  const outcomes = await probe({ inspections, deadlineAt, stopAtAccepted: CANDIDATES_PER_TRANSACTION });
  const results = inspections.map((inspection, index) => engine.conclude(inspection, outcomes?.[index] ?? null, model));
  const proof = results.findIndex((result) => result.smtp.catchAll);
  if (proof >= 0) {
    // The server accepts every address: a candidate skipped after the first yes would have had the
    // same answer. Each is concluded as a check of it would be, with the same knowledge of the domain,
    // so that the confidence reported for an address is the one a check of it gives (ties keep the
    // candidates' order: the domain's pattern shares).
    const concluded = results.map((result, index) =>
      outcomes?.[index]?.probe.failure === 'skipped'
        ? engine.conclude(inspections[index], outcomes[proof], model)
        : result,
    );
    const scored = concluded
      .map((result, index) => ({ email: result.email, confidence: result.confidence ?? 0, index }))
      .sort((a, b) => b.confidence - a.confidence);
    const [best, ...rest] = scored;
    return {
      email: best.email,
      confidence: best.confidence,
      pattern: list[best.index].pattern,
      result: concluded[best.index],
      alternatives: rest.slice(0, 3).map(({ email, confidence }) => ({ email, confidence })),
    };
  }
  const accepted = results.flatMap((result, index) => (result.smtp.deliverable ? [index] : []));
  if (accepted.length === 0) return NOTHING;
  const [first, ...others] = accepted;
  return {
    email: results[first].email,
    confidence: results[first].score,
    pattern: list[first].pattern,
    result: results[first],
    alternatives: others.map((index) => ({ email: results[index].email, confidence: results[index].score })),
  };
}
