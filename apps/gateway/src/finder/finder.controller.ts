import { Controller, Get, Inject, Param, Query, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { APP_CONFIG, type AppConfig } from '@mailguard/config';
import { CreditLedger } from '@mailguard/credits';
import type { VerificationEngine } from '@mailguard/engine';
import { AppError } from '@mailguard/errors';
import { DomainKnowledge } from '@mailguard/feedback';
import { domainInsight, findAddress, parseName, registrableDomain, type DomainInsight, type FinderAnswer } from '@mailguard/finder';
import { newId } from '@mailguard/keys';
import type { ResultStore } from '@mailguard/pipeline';
import { Scopes, setCreditsRemaining, type AuthedRequest } from '../auth/access';
import { ENGINE, RESULT_STORE } from '../infra.module';

const MAX_PARAM = 200;

@Controller('email-finder')
export class FinderController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(ENGINE) private readonly engine: VerificationEngine,
    @Inject(RESULT_STORE) private readonly store: ResultStore,
    private readonly ledger: CreditLedger,
    private readonly knowledge: DomainKnowledge,
  ) {}

  /** #10: free. */
  @Get('domain/:domain')
  @Scopes('full', 'verify')
  async domain(@Param('domain') param: string): Promise<DomainInsight> {
    const domain = param.length <= MAX_PARAM ? registrableDomain(param) : null;
    if (!domain) throw new AppError('bad_request', 'Give a domain such as acme.com (or a URL)');
    return domainInsight(this.engine, domain, await this.knowledge.model(domain));
  }

  /**
   * #9: 1 credit when an address is returned, nothing otherwise (taken up front so that the
   * balance cannot be overdrawn, and refunded when nothing is found).
   */
  @Get()
  @Scopes('full', 'verify')
  async find(
    @Req() req: AuthedRequest,
    @Res({ passthrough: true }) res: Response,
    @Query('firstName') firstName?: string,
    @Query('lastName') lastName?: string,
    @Query('fullName') fullName?: string,
    @Query('domain') domainParam?: string,
  ): Promise<FinderAnswer> {
    for (const value of [firstName, lastName, fullName, domainParam]) {
      if (value !== undefined && (typeof value !== 'string' || value.length > MAX_PARAM)) throw new AppError('bad_request', `Parameters are single strings of at most ${MAX_PARAM} characters`);
    }
    const name = parseName({ firstName, lastName, fullName });
    if (!name) throw new AppError('bad_request', 'Give firstName and lastName, or fullName, with letters in them');
    const domain = domainParam ? registrableDomain(domainParam) : null;
    if (!domain) throw new AppError('bad_request', 'Give domain: a company domain or URL');
    const accountId = req.auth.account.id;
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
    if (answer.email && answer.result) {
      // A hit a server confirmed teaches the domain its pattern (the name is known, so the pattern is too).
      if (answer.pattern && answer.result.reason === 'accepted_email') await this.knowledge.found(domain, answer.result.checks.syntax.localPart, answer.pattern);
      await this.store.record({ requestId: newId('ver'), email: answer.email, deadlineAt: Date.now() + this.config.checks.deadlineMs, accountId, kind: 'finder' }, answer.result);
      setCreditsRemaining(res, charged);
    } else {
      setCreditsRemaining(res, await this.ledger.refund(accountId, 1, 'refund: nobody found', ref));
    }
    return answer;
  }
}
