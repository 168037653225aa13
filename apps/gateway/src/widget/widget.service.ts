import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { WIDGET_FREE_TIER } from '@mailguard/credits';
import type { VerificationResult } from '@mailguard/engine';
import { AppError } from '@mailguard/errors';
import { ApiKeys, type Authenticated } from '@mailguard/keys';
import type { DailyQuota, RateLimiter } from '@mailguard/ratelimit';
import { normalizeOrigin, signGuardToken, WidgetSettingsStore, type WidgetSettings } from '@mailguard/widget';
import { assertActive } from '../auth/api-key.guard';
import { KeyMeter } from '../auth/key-meter';
import { DAILY_QUOTA, RATE_LIMITER } from '../auth/tokens';
import { VerificationService } from '../validation/verification.service';

/** A widget key is paid per check, but one visitor cannot spend an account's credits at speed. */
const KEYED_PER_IP_MINUTE = 30;
/** The dashboard's preview is free: enough to try settings for a day, not a free verification service. */
export const PREVIEW_PER_ACCOUNT_DAY = 100;

export interface WidgetRequest {
  email: string;
  deviceId?: string;
  presentedKey: string | undefined;
  origin: string | undefined;
  ip: string;
}

/**
 * `POST /v1/widget/verify` (docs/api.md endpoint #12): without a key the public tier, counted per device and
 * IP; with a widget key a paid check, only from the account's allowed origins, answered with a
 * signed token for the site's server and the account's widget defaults.
 */
@Injectable()
export class WidgetService {
  constructor(
    private readonly keys: ApiKeys,
    private readonly meter: KeyMeter,
    private readonly settings: WidgetSettingsStore,
    private readonly verifications: VerificationService,
    @Inject(RATE_LIMITER) private readonly limiter: RateLimiter,
    @Inject(DAILY_QUOTA) private readonly quota: DailyQuota,
  ) {}

  async verify(request: WidgetRequest, res: FastifyReply): Promise<VerificationResult> {
    if (!request.presentedKey) return this.publicTier(request);
    const auth = await this.keys.authenticate(request.presentedKey.trim());
    if (!auth) {
      await this.meter.unknownKey(request.ip, res);
      throw new AppError('unauthorized', 'Invalid or revoked widget key');
    }
    if (auth.key.type !== 'widget') {
      throw new AppError(
        'forbidden',
        'Secret keys must never reach a browser: create a widget key (POST /v1/keys with "type": "widget") for the widget',
      );
    }
    // A suspended account's widget keys are refused like its secret keys (docs/operations.md#operator-console).
    assertActive(auth);
    const settings = await this.settings.get(auth.account.id);
    const origin = request.origin ? normalizeOrigin(request.origin) : null;
    if (settings.allowedOrigins.length > 0 && !(origin && settings.allowedOrigins.includes(origin))) {
      throw new AppError(
        'forbidden',
        `This widget key works only from the account's allowed origins; ${request.origin ? `${request.origin} is not one of them` : 'the request named no Origin'}`,
      );
    }
    // Only now may the page read the answer (docs/widget.md: CORS only for allowed origins with a key).
    res.header('Access-Control-Allow-Origin', request.origin ?? '*');
    res.header('Access-Control-Expose-Headers', 'X-Guard-Token, X-Guard-Settings');
    const decision = await this.limiter.hit(`widget:${auth.key.id}:${request.ip}`, KEYED_PER_IP_MINUTE, 60_000);
    if (!decision.allowed) {
      res.header('Retry-After', String(Math.max(1, decision.resetSeconds)));
      throw new AppError('rate_limited', `At most ${KEYED_PER_IP_MINUTE} widget checks per minute from one visitor`);
    }
    const { results } = await this.verifications.check(auth.account.id, [request.email], 'widget');
    const result = results[0];
    res.header('X-Guard-Token', this.token(result, auth));
    res.header('X-Guard-Settings', encodeSettings(settings));
    return result;
  }

  /**
   * The dashboard's preview of the widget: a check that costs nothing and is counted apart from the public tier
   * (its own daily count per account), answered from the cache when it can.
   */
  async preview(accountId: string, email: string): Promise<VerificationResult> {
    const taken = await this.quota.take([[`preview:${accountId}`, PREVIEW_PER_ACCOUNT_DAY]]);
    if (!taken.allowed)
      throw new AppError(
        'rate_limited',
        `The widget preview allows ${PREVIEW_PER_ACCOUNT_DAY} checks per account per day; try again tomorrow`,
      );
    return this.verifications.checkAnonymous(email);
  }

  private async publicTier(request: WidgetRequest): Promise<VerificationResult> {
    if (!request.deviceId) throw new AppError('bad_request', 'deviceId is required without a widget key');
    const taken = await this.quota.take([
      [`device:${request.ip}:${request.deviceId}`, WIDGET_FREE_TIER.perDevice],
      [`ip:${request.ip}`, WIDGET_FREE_TIER.perIp],
    ]);
    if (!taken.allowed) {
      const limit =
        taken.exhausted === 0
          ? `${WIDGET_FREE_TIER.perDevice} checks per device`
          : `${WIDGET_FREE_TIER.perIp} checks per IP address`;
      throw new AppError(
        'rate_limited',
        `The free widget tier allows ${limit} per day; use a widget key (apiKey) for more`,
      );
    }
    return this.verifications.checkAnonymous(request.email);
  }

  private token(result: VerificationResult, auth: Authenticated): string {
    return signGuardToken(
      {
        email: result.email,
        status: result.status,
        reason: result.reason,
        disposable: result.isDisposable,
        free: result.isFree,
        role: result.isRole,
        catchAll: result.smtp.catchAll,
        iat: Math.floor(Date.now() / 1000),
      },
      auth.account.webhookSecret,
    );
  }
}

/** Header-safe: base64url of the UTF-8 JSON (custom messages may hold any language). */
function encodeSettings(settings: WidgetSettings): string {
  return Buffer.from(JSON.stringify(settings.defaults)).toString('base64url');
}
