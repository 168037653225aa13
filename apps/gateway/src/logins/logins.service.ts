import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  assertPasswordAllowed,
  consumeLink,
  endSession,
  endSessions,
  hashPassword,
  issueLink,
  MEMBER_ROLES,
  recordAudit,
  sendMail,
  SESSION_IDLE_MS,
  startSession,
  verifyPassword,
  type Principal,
  type Role,
  type SessionPrincipal,
  type StartedSession,
} from '@mailguard/accounts';
import { APP_CONFIG, type AppConfig } from '@mailguard/config';
import { LOGGER } from '@mailguard/core';
import { AccountEntity, AuditEntryEntity, Database, MemberEntity, SessionEntity, type MemberRole } from '@mailguard/db';
import { AppError, assertPlainText } from '@mailguard/errors';
import { newId } from '@mailguard/keys';
import type { Logger } from '@mailguard/logger';
import type { RateDecision, RateLimiter } from '@mailguard/ratelimit';
import type { ChangeOrigin } from '../auth/access';
import { retryAfter } from '../auth/key-meter';
import { RATE_LIMITER } from '../auth/tokens';

/** Failed sign-ins counted per email and per client address: past 10 in 15 minutes, 429. */
export const LOGIN_FAILURES = { limit: 10, windowMs: 15 * 60_000 };
/** Reset mails per address: a few an hour, so the form cannot be used to flood someone's mailbox. */
const RESETS_PER_EMAIL = { limit: 5, windowMs: 3_600_000 };
const WRONG_LOGIN = 'Wrong email or password';
const EMAIL = /^[^\s@<>()"]+@[^\s@<>()"]+\.[^\s@<>()"]+$/;

/** Where a person signing in comes from. */
export interface LoginOrigin {
  clientIp: string;
  device: string | null;
  requestId: string | null;
}

/** The person behind an email: an account's owner or a member. */
interface Login {
  account: AccountEntity;
  member: MemberEntity | null;
  passwordHash: string | null;
  role: Role;
}

export interface SignedInView {
  account: { id: string; email: string; name: string | null; credits: number };
  user: { email: string; role: Role };
}

export interface SessionView {
  id: string;
  device: string | null;
  address: string | null;
  createdAt: Date;
  lastSeenAt: Date;
  current: boolean;
}

export interface MemberView {
  id: string;
  email: string;
  role: MemberRole;
  createdAt: Date;
  acceptedAt: Date | null;
}

export interface AuditView {
  actor: string;
  action: string;
  target: string | null;
  time: Date;
  address: string | null;
  requestId: string | null;
}

function normalEmail(email: unknown): string {
  if (typeof email !== 'string') throw new AppError('bad_request', 'email must be a string');
  const trimmed = email.trim();
  if (trimmed.length < 3 || trimmed.length > 254)
    throw new AppError('bad_request', 'email must be 3 to 254 characters');
  assertPlainText('email', trimmed);
  return trimmed;
}

/**
 * Sign-in for people (docs/api.md#accounts-sessions-and-members): passwords, sessions, one-time links
 * sent by mail, members and the account's audit log. Every change is written with its audit entry
 * in one transaction.
 */
@Injectable()
export class LoginsService implements OnApplicationShutdown {
  /** Mail being sent after its request was answered: awaited at shutdown. */
  private readonly sending = new Set<Promise<void>>();

  constructor(
    private readonly database: Database,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(RATE_LIMITER) private readonly limiter: RateLimiter,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await Promise.allSettled([...this.sending]);
  }

  private get dataSource() {
    return this.database.dataSource;
  }

  /** The login an email names, whether it has a password yet or not; null when none. */
  private async findLogin(manager: EntityManager, email: string): Promise<Login | null> {
    const emailKey = email.toLowerCase();
    const account = await manager.findOne(AccountEntity, { where: { emailKey } });
    if (account && account.status !== 'erased')
      return { account, member: null, passwordHash: account.passwordHash, role: 'owner' };
    const member = await manager.findOne(MemberEntity, { where: { emailKey } });
    if (!member) return null;
    const owner = await manager.findOne(AccountEntity, { where: { id: member.accountId } });
    if (!owner || owner.status === 'erased') return null;
    return { account: owner, member, passwordHash: member.passwordHash, role: member.role };
  }

  private view(login: Login): SignedInView {
    const { account } = login;
    return {
      account: { id: account.id, email: account.email, name: account.name, credits: account.balance },
      user: { email: login.member?.email ?? account.email, role: login.role },
    };
  }

  private throttled(decision: RateDecision): AppError {
    const wait = retryAfter(decision);
    return new AppError('rate_limited', `Too many failed sign-ins; retry in ${wait} s`, { retryAfterSeconds: wait });
  }

  /** 200 with the session, or one 401 for a wrong email and a wrong password alike; 429 past 10 failures. */
  async login(
    emailInput: unknown,
    password: unknown,
    origin: LoginOrigin,
  ): Promise<SignedInView & { session: StartedSession }> {
    const email = normalEmail(emailInput);
    if (typeof password !== 'string' || password.length === 0 || password.length > 256)
      throw new AppError('bad_request', 'password must be a string of 1 to 256 characters');
    const keys = [`loginfail:email:${email.toLowerCase()}`, `loginfail:ip:${origin.clientIp}`];
    for (const key of keys) {
      const state = await this.limiter.peek(key, LOGIN_FAILURES.limit, LOGIN_FAILURES.windowMs);
      if (!state.allowed) throw this.throttled(state);
    }
    const login = await this.findLogin(this.dataSource.manager, email);
    // No login, or one without a password yet: the same hashing work, the same answer.
    const matches = await verifyPassword(password, login?.passwordHash ?? null);
    if (!login || !matches) {
      for (const key of keys) await this.limiter.hit(key, LOGIN_FAILURES.limit, LOGIN_FAILURES.windowMs);
      throw new AppError('unauthorized', WRONG_LOGIN);
    }
    if (login.account.status === 'suspended')
      throw new AppError('account_suspended', 'This account is suspended; contact support');
    const session = await this.dataSource.transaction(async (manager) => {
      const started = await startSession(manager, {
        accountId: login.account.id,
        memberId: login.member?.id ?? null,
        device: origin.device,
        clientIp: origin.clientIp,
      });
      await recordAudit(manager, {
        accountId: login.account.id,
        actor: login.member ? `member:${login.member.id}` : `account:${login.account.id}`,
        action: 'session.login',
        target: started.id,
        clientIp: origin.clientIp,
        requestId: origin.requestId,
      });
      return started;
    });
    return { ...this.view(login), session };
  }

  /** Ends the session a request was made with (sign-out). */
  async logout(auth: SessionPrincipal, origin: ChangeOrigin): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      if (await endSession(manager, auth.account.id, auth.session.id))
        await recordAudit(manager, {
          accountId: auth.account.id,
          ...origin,
          action: 'session.logout',
          target: auth.session.id,
        });
    });
  }

  /**
   * The caller's sessions: a person sees their own; a key (the account's `full` key) every session of
   * the account.
   */
  async sessions(auth: Principal): Promise<SessionView[]> {
    // Sessions past their idle end are over too, though their rows wait for the retention sweep.
    const query = this.dataSource
      .getRepository(SessionEntity)
      .createQueryBuilder('session')
      .where('session.accountId = :accountId', { accountId: auth.account.id })
      .andWhere('session.expiresAt > now()')
      .andWhere('session.lastSeenAt > now() - make_interval(secs => :idle)', { idle: SESSION_IDLE_MS / 1000 })
      .orderBy('session.lastSeenAt', 'DESC');
    if (auth.session) {
      if (auth.session.memberId) query.andWhere('session.memberId = :memberId', { memberId: auth.session.memberId });
      else query.andWhere('session.memberId IS NULL');
    }
    const rows = await query.getMany();
    return rows.map((row) => ({
      id: row.id,
      device: row.device,
      address: row.clientIp,
      createdAt: row.createdAt,
      lastSeenAt: row.lastSeenAt,
      current: row.id === auth.session?.id,
    }));
  }

  /** Ends one of the caller's sessions (any of the account's for a key); 404 for anyone else's. */
  async endOne(auth: Principal, id: string, origin: ChangeOrigin): Promise<void> {
    const visible = await this.sessions(auth);
    if (!visible.some((session) => session.id === id)) throw new AppError('not_found', 'No such session');
    await this.dataSource.transaction(async (manager) => {
      if (!(await endSession(manager, auth.account.id, id))) throw new AppError('not_found', 'No such session');
      await recordAudit(manager, { accountId: auth.account.id, ...origin, action: 'session.end', target: id });
    });
  }

  /** A signed-in person's new password: the current one first; their other sessions end. */
  async changePassword(auth: SessionPrincipal, current: unknown, next: unknown, origin: ChangeOrigin): Promise<void> {
    if (typeof current !== 'string') throw new AppError('bad_request', 'currentPassword must be a string');
    const { memberId } = auth.session;
    const member = memberId ? await this.dataSource.getRepository(MemberEntity).findOneBy({ id: memberId }) : null;
    const email = member?.email ?? auth.account.email;
    assertPasswordAllowed(next, email);
    const stored = memberId ? (member?.passwordHash ?? null) : await this.ownerHash(auth.account.id);
    if (!(await verifyPassword(current, stored))) throw new AppError('forbidden', 'The current password is wrong');
    const hash = await hashPassword(next);
    await this.dataSource.transaction(async (manager) => {
      await this.storePassword(manager, auth.account.id, memberId, hash);
      await endSessions(manager, auth.account.id, { memberId, except: auth.session.id });
      await recordAudit(manager, {
        accountId: auth.account.id,
        ...origin,
        action: 'password.change',
        target: memberId ?? auth.account.id,
      });
    });
  }

  private async ownerHash(accountId: string): Promise<string | null> {
    const account = await this.dataSource.getRepository(AccountEntity).findOneBy({ id: accountId });
    return account?.passwordHash ?? null;
  }

  private async storePassword(
    manager: EntityManager,
    accountId: string,
    memberId: string | null,
    hash: string,
  ): Promise<void> {
    if (memberId) await manager.update(MemberEntity, { id: memberId, accountId }, { passwordHash: hash });
    else await manager.update(AccountEntity, { id: accountId }, { passwordHash: hash });
  }

  /** 202 whatever the email: a link goes to the login's address when there is one and mail is configured. */
  async requestReset(emailInput: unknown, origin: LoginOrigin): Promise<void> {
    const email = normalEmail(emailInput);
    const allowed = await this.limiter.hit(
      `reset:${email.toLowerCase()}`,
      RESETS_PER_EMAIL.limit,
      RESETS_PER_EMAIL.windowMs,
    );
    if (!allowed.allowed) return;
    const login = await this.findLogin(this.dataSource.manager, email);
    if (!login || (login.member && !login.member.acceptedAt)) return;
    const relay = this.config.logins.mailRelay;
    if (!relay) {
      this.logger.warn(
        { reqId: origin.requestId },
        'password reset asked, but MAIL_RELAY_URL is not set: no mail sent',
      );
      return;
    }
    const token = await issueLink(
      this.dataSource.manager,
      'password_reset',
      login.account.id,
      login.member?.id ?? null,
    );
    const link = `${this.config.logins.publicUrl}/dashboard/#/reset?token=${token}`;
    this.send(login.member?.email ?? login.account.email, 'Reset your MailGuard password', [
      'Someone (we hope you) asked to reset the password of your MailGuard login.',
      '',
      `Choose a new password here within 30 minutes: ${link}`,
      '',
      'If you did not ask for this, ignore this message: your password stays as it is.',
    ]);
  }

  /** Sends after the answer: its timing must not tell whether the address has a login. */
  private send(to: string, subject: string, lines: string[]): void {
    const relay = this.config.logins.mailRelay;
    if (!relay) return;
    const sending = sendMail(relay, { to, subject, text: lines.join('\n') })
      .catch((error: unknown) => this.logger.error({ err: error }, 'could not send mail through MAIL_RELAY_URL'))
      .finally(() => this.sending.delete(sending));
    this.sending.add(sending);
  }

  /**
   * A reset link's new password: the owner's reset ends every session of the account, a member's
   * that member's sessions.
   */
  async confirmReset(token: unknown, password: unknown, origin: LoginOrigin): Promise<void> {
    if (typeof token !== 'string') throw new AppError('bad_request', 'token must be a string');
    if (typeof password !== 'string') throw new AppError('bad_request', 'password must be a string');
    await this.dataSource.transaction(async (manager) => {
      const link = await consumeLink(manager, 'password_reset', token);
      if (!link) throw new AppError('bad_request', 'This link is invalid, used or expired: ask for a new one');
      const { member, email } = await this.linked(manager, link.accountId, link.memberId);
      assertPasswordAllowed(password, email);
      await this.storePassword(manager, link.accountId, link.memberId, await hashPassword(password));
      await endSessions(manager, link.accountId, member ? { memberId: member.id } : {});
      await recordAudit(manager, {
        accountId: link.accountId,
        actor: member ? `member:${member.id}` : `account:${link.accountId}`,
        action: 'password.reset',
        target: member?.id ?? link.accountId,
        clientIp: origin.clientIp,
        requestId: origin.requestId,
      });
    });
  }

  private async linked(
    manager: EntityManager,
    accountId: string,
    memberId: string | null,
  ): Promise<{ account: AccountEntity; member: MemberEntity | null; email: string }> {
    const account = await manager.findOne(AccountEntity, { where: { id: accountId } });
    const member = memberId ? await manager.findOne(MemberEntity, { where: { id: memberId, accountId } }) : null;
    if (!account || account.status === 'erased' || (memberId && !member))
      throw new AppError('bad_request', 'This link is invalid, used or expired: ask for a new one');
    return { account, member, email: member?.email ?? account.email };
  }

  /** A new member (pending until they accept the mailed invitation). */
  async invite(auth: Principal, emailInput: unknown, role: unknown, origin: ChangeOrigin): Promise<MemberView> {
    const email = normalEmail(emailInput);
    if (!EMAIL.test(email)) throw new AppError('bad_request', 'email is not a valid address');
    if (typeof role !== 'string' || !MEMBER_ROLES.includes(role as MemberRole))
      throw new AppError('bad_request', `role must be one of ${MEMBER_ROLES.join(', ')}`);
    const emailKey = email.toLowerCase();
    const { member, token } = await this.dataSource
      .transaction(async (manager) => {
        if (await manager.exists(AccountEntity, { where: { emailKey } }))
          throw new AppError('conflict', 'This address already signs in to an account');
        const created = manager.create(MemberEntity, {
          id: newId('mem'),
          accountId: auth.account.id,
          email,
          emailKey,
          role: role as MemberRole,
          passwordHash: null,
          acceptedAt: null,
        });
        await manager.insert(MemberEntity, created);
        await recordAudit(manager, {
          accountId: auth.account.id,
          ...origin,
          action: 'member.invite',
          target: created.id,
          detail: role,
        });
        const issued = this.config.logins.mailRelay
          ? await issueLink(manager, 'invitation', auth.account.id, created.id)
          : null;
        return { member: await manager.findOneOrFail(MemberEntity, { where: { id: created.id } }), token: issued };
      })
      .catch((error: { code?: string }) => {
        if (error.code === '23505') throw new AppError('conflict', 'This address is already a member');
        throw error;
      });
    if (token) {
      const link = `${this.config.logins.publicUrl}/dashboard/#/invite?token=${token}`;
      this.send(email, 'You are invited to a MailGuard account', [
        `You were invited to the MailGuard account of ${auth.account.email} as ${role}.`,
        '',
        `Choose your password here within 7 days: ${link}`,
      ]);
    } else {
      this.logger.warn(
        { reqId: origin.requestId },
        'member invited, but MAIL_RELAY_URL is not set: no invitation sent',
      );
    }
    return memberView(member);
  }

  /** An invitation's password: the member can sign in, and is signed in now. */
  async acceptInvitation(
    token: unknown,
    password: unknown,
    origin: LoginOrigin,
  ): Promise<SignedInView & { session: StartedSession }> {
    if (typeof token !== 'string') throw new AppError('bad_request', 'token must be a string');
    if (typeof password !== 'string') throw new AppError('bad_request', 'password must be a string');
    return this.dataSource.transaction(async (manager) => {
      const link = await consumeLink(manager, 'invitation', token);
      if (!link?.memberId) throw new AppError('bad_request', 'This invitation is invalid, used or expired');
      const { account, member, email } = await this.linked(manager, link.accountId, link.memberId);
      if (!member) throw new AppError('bad_request', 'This invitation is invalid, used or expired');
      if (account.status === 'suspended')
        throw new AppError('account_suspended', 'This account is suspended; contact support');
      assertPasswordAllowed(password, email);
      await manager.update(
        MemberEntity,
        { id: member.id },
        { passwordHash: await hashPassword(password), acceptedAt: new Date() },
      );
      const actor = `member:${member.id}`;
      const base = { accountId: account.id, actor, clientIp: origin.clientIp, requestId: origin.requestId };
      await recordAudit(manager, { ...base, action: 'member.accept', target: member.id });
      const session = await startSession(manager, {
        accountId: account.id,
        memberId: member.id,
        device: origin.device,
        clientIp: origin.clientIp,
      });
      await recordAudit(manager, { ...base, action: 'session.login', target: session.id });
      return { ...this.view({ account, member, passwordHash: null, role: member.role }), session };
    });
  }

  async members(accountId: string): Promise<MemberView[]> {
    const rows = await this.dataSource
      .getRepository(MemberEntity)
      .find({ where: { accountId }, order: { createdAt: 'ASC' } });
    return rows.map(memberView);
  }

  /** Removes a member: their sessions and links go with them (cascade). */
  async removeMember(auth: Principal, id: string, origin: ChangeOrigin): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const removed = /^mem_[A-Za-z0-9]{24}$/.test(id)
        ? await manager.delete(MemberEntity, { id, accountId: auth.account.id })
        : { affected: 0 };
      if (!removed.affected) throw new AppError('not_found', 'No such member');
      await recordAudit(manager, { accountId: auth.account.id, ...origin, action: 'member.remove', target: id });
    });
  }

  async audit(
    accountId: string,
    page: number,
    limit: number,
  ): Promise<{ data: AuditView[]; page: number; limit: number; total: number }> {
    const [rows, total] = await this.dataSource.getRepository(AuditEntryEntity).findAndCount({
      where: { accountId },
      order: { id: 'DESC' },
      skip: (page - 1) * limit,
      take: limit,
    });
    return {
      data: rows.map((row) => ({
        actor: row.actor,
        action: row.action,
        target: row.target,
        time: row.createdAt,
        address: row.clientIp,
        requestId: row.requestId,
      })),
      page,
      limit,
      total,
    };
  }
}

function memberView(member: MemberEntity): MemberView {
  return {
    id: member.id,
    email: member.email,
    role: member.role,
    createdAt: member.createdAt,
    acceptedAt: member.acceptedAt,
  };
}
