import { domainToASCII } from 'node:url';
import type { DataSource } from 'typeorm';
import {
  DomainEvidenceEntity,
  DomainQueryEntity,
  FeedbackEntity,
  RELAXED_COMMIT,
  type EvidenceSource,
} from '@mailguard/db';
import type { Inspection, ProbeOutcome, VerificationEngine, VerificationResult } from '@mailguard/engine';
import { learnDomain, MAX_QUERIES, type DomainModel, type Evidence } from '@mailguard/scoring';

/** Evidence is kept by A-label, as feedback stores it, whichever form a caller has. */
const aLabel = (domain: string) => domainToASCII(domain) || domain;
/** A result's address as the evidence and query tables key it. */
const address = (result: VerificationResult) => ({
  domain: aLabel(result.domain),
  local_part: result.checks.syntax.localPart.toLowerCase(),
});

/** Evidence beyond this many addresses per domain and kind changes the model little; the newest count. */
const MAX_EVIDENCE = 2_000;
/** Addresses with a separator known to exist anywhere, whose name parts teach names the lists lack (domain-model.ts). */
const MAX_NAMED = 20_000;
/**
 * How long a process reuses the names it read (ms). Reading them takes two unindexable regex scans,
 * and catch-all domains are concluded in every batch of checks and lists; a name learned elsewhere
 * changes how rare names read, which can wait a minute.
 */
export const NAMES_REFRESH_MS = 60_000;

export interface DomainKnowledgeOptions {
  /** The clock the names' age is measured by (tests move it instead of waiting). */
  now?: () => number;
}

/**
 * What the service knows about each domain's addresses (Postgres: `domain_evidence`, `feedback`
 * and `domain_queries`), and the verdicts that use it: a catch-all address is concluded with its
 * domain's learned model (libs/checks/scoring/src/domain-model.ts), every address a strict server
 * accepted is remembered for its domain's pattern, and every address checked at a catch-all domain
 * as a query there (weak evidence of the pattern before any report).
 */
export class DomainKnowledge {
  /** The names last read and when: one entry, replaced when it is older than NAMES_REFRESH_MS. */
  private names: { at: number; list: Promise<string[]> } | null = null;
  private readonly now: () => number;

  constructor(
    private readonly dataSource: () => DataSource,
    options: DomainKnowledgeOptions = {},
  ) {
    this.now = options.now ?? Date.now;
  }

  /** Everything known at a domain, oldest first so that the latest word on an address wins. */
  async evidence(name: string): Promise<Evidence[]> {
    const domain = aLabel(name);
    const [known, reports] = await Promise.all([
      this.dataSource()
        .getRepository(DomainEvidenceEntity)
        .find({
          select: { localPart: true, source: true, pattern: true },
          where: { domain },
          order: { createdAt: 'DESC' },
          take: MAX_EVIDENCE,
        }),
      // Each address counts once, with its latest report, whoever sent it. Raw: the newest of each
      // address (DISTINCT ON), then the newest addresses, reads plainer in SQL than in the builder.
      this.dataSource().query(
        `SELECT local_part, outcome FROM (
           SELECT DISTINCT ON (local_part) local_part, outcome, created_at FROM feedback WHERE domain = $1 ORDER BY local_part, created_at DESC
         ) latest ORDER BY created_at DESC LIMIT $2`,
        [domain, MAX_EVIDENCE],
      ) as Promise<Array<{ local_part: string; outcome: 'delivered' | 'bounced' }>>,
    ]);
    return [
      ...known.reverse().map((row): Evidence => ({
        localPart: row.localPart,
        outcome: 'exists',
        source: row.source,
        pattern: row.pattern,
      })),
      ...reports.reverse().map((row): Evidence => ({
        localPart: row.local_part,
        outcome: row.outcome === 'delivered' ? 'exists' : 'bounced',
        source: 'feedback',
        pattern: null,
      })),
    ];
  }

  /**
   * Addresses with a separator known to exist at any domain (accepted, registered, found, reported
   * delivered): their name parts are names, whether the lists hold them or not. Whichever come first
   * up to MAX_NAMED: a name is learned from any one of its addresses. Read at most once per
   * NAMES_REFRESH_MS per process (concurrent callers share the read); a failed read is not kept.
   */
  named(): Promise<string[]> {
    const at = this.now();
    if (this.names && at - this.names.at < NAMES_REFRESH_MS) return this.names.list;
    const entry = { at, list: this.readNames() };
    this.names = entry;
    entry.list.catch(() => {
      if (this.names === entry) this.names = null;
    });
    return entry.list;
  }

  private async readNames(): Promise<string[]> {
    const separated = { separator: '[._-]' };
    const [known, delivered] = await Promise.all([
      this.dataSource()
        .getRepository(DomainEvidenceEntity)
        .createQueryBuilder('evidence')
        .select('evidence.localPart', 'localPart')
        .where('evidence.localPart ~ :separator', separated)
        .limit(MAX_NAMED)
        .getRawMany<{ localPart: string }>(),
      this.dataSource()
        .getRepository(FeedbackEntity)
        .createQueryBuilder('report')
        .select('report.localPart', 'localPart')
        .where("report.outcome = 'delivered'")
        .andWhere('report.localPart ~ :separator', separated)
        .limit(MAX_NAMED)
        .getRawMany<{ localPart: string }>(),
    ]);
    return [...new Set([...known, ...delivered].map((row) => row.localPart.toLowerCase()))];
  }

  /** The local parts checked at a catch-all domain, the newest MAX_QUERIES (what the model reads), oldest first. */
  async queried(name: string): Promise<string[]> {
    const rows = await this.dataSource()
      .getRepository(DomainQueryEntity)
      .find({
        select: { localPart: true },
        where: { domain: aLabel(name) },
        order: { createdAt: 'DESC', localPart: 'ASC' },
        take: MAX_QUERIES,
      });
    return rows.reverse().map((row) => row.localPart);
  }

  async model(domain: string): Promise<DomainModel> {
    const [evidence, elsewhere, queried] = await Promise.all([
      this.evidence(domain),
      this.named(),
      this.queried(domain),
    ]);
    return learnDomain(evidence, elsewhere, queried);
  }

  /** Verdicts; those at catch-all domains are concluded again with what their domain has taught (one look-up per domain). */
  async conclude(
    engine: VerificationEngine,
    inspections: Inspection[],
    outcomes: Array<ProbeOutcome | null>,
  ): Promise<VerificationResult[]> {
    const models = new Map<string, Promise<DomainModel>>();
    return Promise.all(
      inspections.map(async (inspection, index) => {
        const result = engine.conclude(inspection, outcomes[index]);
        const domain = inspection.asciiDomain;
        if (!result.smtp.catchAll || !domain) return result;
        if (!models.has(domain)) models.set(domain, this.model(domain));
        return engine.conclude(inspection, outcomes[index], await models.get(domain));
      }),
    );
  }

  /**
   * Addresses known to exist teach their domain's pattern: those a strict server accepted, and at
   * catch-all domains (where the server says yes to anything) those registered with Gravatar.
   * Role addresses are not people, and free providers' addresses follow no company's pattern:
   * neither teaches anything (which also keeps the table to company domains).
   */
  async learn(results: VerificationResult[]): Promise<void> {
    await Promise.all([this.remember(results), this.asked(results)]);
  }

  private async remember(results: VerificationResult[]): Promise<void> {
    const known = results.flatMap((result): Array<{ result: VerificationResult; source: EvidenceSource }> => {
      if (result.isFree) return [];
      if (result.reason === 'accepted_email') return [{ result, source: 'verified' }];
      if (result.reason === 'catch_all' && result.hasGravatar && !result.isRole) return [{ result, source: 'avatar' }];
      return [];
    });
    if (known.length === 0) return;
    // One row per address: one already known keeps its row. It stands alone and is on the answer's path:
    // its commit is relaxed (see RELAXED_COMMIT); a crash can only cost a little of what is learnt.
    await this.dataSource().query(
      `WITH ${RELAXED_COMMIT}
       INSERT INTO domain_evidence (domain, local_part, source)
       SELECT item.domain, item.local_part, item.source FROM jsonb_to_recordset($1::jsonb)
         AS item(domain text, local_part text, source text), relaxed
       ON CONFLICT DO NOTHING`,
      [JSON.stringify(known.map(({ result, source }) => ({ ...address(result), source })))],
    );
  }

  /**
   * Every address checked at a catch-all domain (free providers' aside: they follow no company's
   * pattern) is a query there, dated by its latest check; the model picks which say anything
   * (domain-model.ts: not role, junk or known ones). Relaxed like the evidence.
   */
  private async asked(results: VerificationResult[]): Promise<void> {
    const queried = results.filter((result) => result.smtp.catchAll && !result.isFree);
    if (queried.length === 0) return;
    await this.dataSource().query(
      `WITH ${RELAXED_COMMIT}
       INSERT INTO domain_queries (domain, local_part)
       SELECT DISTINCT item.domain, item.local_part FROM jsonb_to_recordset($1::jsonb)
         AS item(domain text, local_part text), relaxed
       ON CONFLICT (domain, local_part) DO UPDATE SET created_at = now()`,
      [JSON.stringify(queried.map(address))],
    );
  }

  /** A finder hit at a strict domain: the pattern is known, not inferred. */
  async found(domain: string, localPart: string, pattern: string): Promise<void> {
    await this.dataSource()
      .createQueryBuilder()
      .insert()
      .into(DomainEvidenceEntity)
      .values({ domain: aLabel(domain), localPart: localPart.toLowerCase(), source: 'finder', pattern })
      .orUpdate(['source', 'pattern'], ['domain', 'local_part'])
      .execute();
  }
}
