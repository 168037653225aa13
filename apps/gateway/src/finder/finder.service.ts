import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@mailguard/config';
import { CreditLedger } from '@mailguard/credits';
import type { VerificationEngine } from '@mailguard/engine';
import { AppError } from '@mailguard/errors';
import { DomainKnowledge } from '@mailguard/feedback';
import { domainInsight, findAddress, parseName, registrableDomain, type DomainInsight, type FinderAnswer } from '@mailguard/finder';
import { newId } from '@mailguard/keys';
import type { ResultStore } from '@mailguard/pipeline';
import { ENGINE, RESULT_STORE } from '../infra.module';

export const MAX_FINDER_PARAM = 200;

export interface FinderQuery {
  firstName?: string;
  lastName?: string;
  fullName?: string;
  domain?: string;
}

/** The finder (#9) and domain insight (#10), for REST and the MCP tools alike. */
@Injectable()
export class FinderService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(ENGINE) private readonly engine: VerificationEngine,
    @Inject(RESULT_STORE) private readonly store: ResultStore,
    private readonly ledger: CreditLedger,
    private readonly knowledge: DomainKnowledge,
  ) {}

  /** #10: free. */
  async domain(param: string): Promise<DomainInsight> {
    const domain = param.length <= MAX_FINDER_PARAM ? registrableDomain(param) : null;
    if (!domain) throw new AppError('bad_request', 'Give a domain such as acme.com (or a URL)');
    return domainInsight(this.engine, domain, await this.knowledge.model(domain));
  }

  /**
   * #9: 1 credit when an address is returned, nothing otherwise (taken up front so that the
   * balance cannot be overdrawn, and refunded when nothing is found). `balance` is the one after.
   */
  async find(accountId: string, query: FinderQuery): Promise<{ answer: FinderAnswer; balance: number }> {
    const { firstName, lastName, fullName, domain: domainParam } = query;
    for (const value of [firstName, lastName, fullName, domainParam]) {
      if (value !== undefined && (typeof value !== 'string' || value.length > MAX_FINDER_PARAM)) throw new AppError('bad_request', `Parameters are single strings of at most ${MAX_FINDER_PARAM} characters`);
    }
    const name = parseName({ firstName, lastName, fullName });
    if (!name) throw new AppError('bad_request', 'Give firstName and lastName, or fullName, with letters in them');
    const domain = domainParam ? registrableDomain(domainParam) : null;
    if (!domain) throw new AppError('bad_request', 'Give domain: a company domain or URL');
    const ref = newId('fnd');
    const charged = await this.ledger.charge(accountId, 1, 'finder', ref);
    if (charged === null) {
      const { balance } = await this.ledger.balance(accountId);
      throw new AppError('insufficient_credits', `Insufficient credits: a found address costs 1 and the balance is ${balance}`);
    }
    let answer: FinderAnswer;
    try {
      answer = await findAddress(this.engine, name, domain, await this.knowledge.model(domain));
    } catch (error) {
      await this.ledger.refund(accountId, 1, 'refund: the finder failed', ref);
      throw error;
    }
    if (!answer.email || !answer.result) return { answer, balance: await this.ledger.refund(accountId, 1, 'refund: nobody found', ref) };
    // A hit a server confirmed teaches the domain its pattern (the name is known, so the pattern is too).
    if (answer.pattern && answer.result.reason === 'accepted_email') await this.knowledge.found(domain, answer.result.checks.syntax.localPart, answer.pattern);
    await this.store.record({ requestId: newId('ver'), email: answer.email, deadlineAt: Date.now() + this.config.checks.deadlineMs, accountId, kind: 'finder' }, answer.result);
    return { answer, balance: charged };
  }
}
