import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@mailguard/config';
import { CreditLedger, earnsWorkBonus } from '@mailguard/credits';
import { assertPasswordAllowed, hashPassword } from '@mailguard/accounts';
import { AccountEntity, ApiKeyEntity, Database, MemberEntity } from '@mailguard/db';
import { AppError, assertPlainText } from '@mailguard/errors';
import { base62, generateKey, newId } from '@mailguard/keys';
import type { RateLimiter } from '@mailguard/ratelimit';
import { RATE_LIMITER } from '../auth/tokens';
import { VerificationService } from '../validation/verification.service';

export interface SignupResponse {
  account: { id: string; email: string; credits: number };
  apiKey: string;
  webhookSecret: string;
}

/** Sign-up (#0): one account per address, its first secret key and its credits. */
@Injectable()
export class AccountsService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(RATE_LIMITER) private readonly limiter: RateLimiter,
    private readonly verifications: VerificationService,
    private readonly ledger: CreditLedger,
    private readonly database: Database,
  ) {}

  async signup(email: string, name: string | undefined, ip: string, password?: string): Promise<SignupResponse> {
    // The password's rules before anything is counted or checked: a refused one costs the client nothing.
    if (password !== undefined) assertPasswordAllowed(password, email);
    const limit = this.config.signup.limitPerIpHour;
    const decision = await this.limiter.hit(`signup:${ip}`, limit, 3_600_000);
    if (!decision.allowed)
      throw new AppError('rate_limited', `At most ${limit} sign-ups per hour from one address; retry later`);

    const accounts = this.database.dataSource.getRepository(AccountEntity);
    // The address is an identity here, stored and looked up as it is: refused outright when no text can hold it.
    assertPlainText('email', email);
    if (
      (await accounts.exists({ where: { emailKey: email.toLowerCase() } })) ||
      // One login per address: a member signs in with theirs.
      (await this.database.dataSource.getRepository(MemberEntity).exists({ where: { emailKey: email.toLowerCase() } }))
    )
      throw new AppError('conflict', 'An account with this email already exists');

    // Our own engine judges the sign-up address: it must be able to receive mail, and not be throwaway.
    const check = await this.verifications.checkUnbilled(email);
    if (!check.syntax) throw new AppError('bad_request', 'email is not a valid address');
    if (check.isDisposable) throw new AppError('bad_request', 'Disposable addresses cannot sign up');
    if (check.status === 'invalid')
      throw new AppError('bad_request', `This address cannot receive mail (${check.reason})`);
    const work = earnsWorkBonus(check);

    const id = newId('acc');
    const webhookSecret = `whsec_${base62(32)}`;
    const { key, prefix, hash } = generateKey('secret');
    const passwordHash = password === undefined ? null : await hashPassword(password);
    const credits = await this.database.dataSource
      .transaction(async (manager) => {
        await manager.insert(AccountEntity, {
          id,
          email: check.email,
          emailKey: check.email.toLowerCase(),
          name: name ?? null,
          balance: 0,
          held: 0,
          webhookSecret,
          signupIp: ip,
          passwordHash,
        });
        await manager.insert(ApiKeyEntity, {
          id: newId('key'),
          accountId: id,
          name: 'Default key',
          type: 'secret',
          scope: 'full',
          prefix,
          keyHash: hash,
          lastUsedAt: null,
          revokedAt: null,
        });
        return this.ledger.grantSignup(id, work, manager);
      })
      .catch((error: { code?: string }) => {
        // Two sign-ups racing for one address: the unique index lets one through.
        if (error.code === '23505') throw new AppError('conflict', 'An account with this email already exists');
        throw error;
      });
    return { account: { id, email: check.email, credits }, apiKey: key, webhookSecret };
  }
}
