import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@mailguard/config';
import { ENGINE } from '@mailguard/core';
import { CreditLedger, FINDER_PRICE, finderKeepsCharge, USAGE_REF_PREFIX } from '@mailguard/credits';
import type { VerificationEngine } from '@mailguard/engine';
import { AppError } from '@mailguard/errors';
import { DomainKnowledge } from '@mailguard/feedback';
import {
  domainInsight,
  findAddress,
  parseDomainParam,
  parseFinderQuery,
  type DomainInsight,
  type FinderAnswer,
  type FinderDeps,
  type FinderQuery,
} from '@mailguard/finder';
import { newId } from '@mailguard/keys';
import { ResultStore } from '@mailguard/pipeline';
import { CHECK_PIPELINE, type CheckPipeline, type CheckRequest } from '@mailguard/queue';

/** The finder (#9) and domain insight (#10), for REST and the MCP tools alike. */
@Injectable()
export class FinderService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(ENGINE) private readonly engine: VerificationEngine,
    @Inject(CHECK_PIPELINE) private readonly pipeline: CheckPipeline,
    private readonly store: ResultStore,
    private readonly ledger: CreditLedger,
    private readonly knowledge: DomainKnowledge,
  ) {}

  /**
   * What the finder runs on: DNS and verdicts here, SMTP only through the smtp queue (with REDIS_URL
   * the smtp-workers', so this process never connects to a mail server). `key`, unique per request,
   * roots the probe's job ids: each request is its own probe, never merged with another's.
   */
  private finder(key: string): FinderDeps {
    return { engine: this.engine, probe: (request) => this.pipeline.probe(key, request) };
  }

  /** #10: free. */
  async domain(param: string): Promise<DomainInsight> {
    const domain = parseDomainParam(param);
    return domainInsight(this.finder(newId('dom')), domain, await this.knowledge.model(domain));
  }

  /**
   * #9: FINDER_PRICE when an address is returned, nothing otherwise (taken up front so that the
   * balance cannot be overdrawn, and refunded when nothing is found). `balance` is the one after.
   * The charge stays open until it is settled here; one this process never settles (it stopped on
   * the way, the answer lost with it) is refunded by the charge sweep.
   */
  async find(accountId: string, query: FinderQuery): Promise<{ answer: FinderAnswer; balance: number }> {
    const { name, domain } = parseFinderQuery(query);
    const ref = newId(USAGE_REF_PREFIX.finder);
    const charged = await this.ledger.charge(accountId, FINDER_PRICE, 'finder', ref, {
      kind: 'finder',
      checks: [],
      dueInMs: this.config.checks.deadlineMs + this.config.checks.chargeSweepMarginMs,
    });
    if (charged === null) {
      const { balance } = await this.ledger.balance(accountId);
      throw new AppError(
        'insufficient_credits',
        `Insufficient credits: a found address costs ${FINDER_PRICE} and the balance is ${balance}`,
      );
    }
    let answer: FinderAnswer;
    try {
      answer = await findAddress(this.finder(ref), name, domain, await this.knowledge.model(domain));
    } catch (error) {
      await this.ledger.settle(accountId, ref, FINDER_PRICE, 'refund: the finder failed');
      throw error;
    }
    if (!finderKeepsCharge(answer)) {
      const { balance } = await this.ledger.settle(accountId, ref, FINDER_PRICE, 'refund: nobody found');
      return { answer, balance };
    }
    // A hit a server confirmed teaches the domain its pattern (the name is known, so the pattern is too).
    if (answer.pattern && answer.result.reason === 'accepted_email')
      await this.knowledge.found(domain, answer.result.checks.syntax.localPart, answer.pattern);
    const request: CheckRequest = {
      requestId: newId('ver'),
      email: answer.email,
      deadlineAt: Date.now() + this.config.checks.deadlineMs,
      accountId,
      kind: 'finder',
    };
    const { result } = answer;
    const { balance } = await this.ledger.settle(accountId, ref, 0, 'finder', (runner) =>
      this.store.record(request, result, runner),
    );
    return { answer, balance };
  }
}
