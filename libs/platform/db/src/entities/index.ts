import { AccountEntity } from './account.entity';
import { ApiKeyEntity } from './api-key.entity';
import { AuditEntryEntity } from './audit-entry.entity';
import { AuthTokenEntity } from './auth-token.entity';
import { CreditTransactionEntity } from './credit-transaction.entity';
import { DomainEvidenceEntity } from './domain-evidence.entity';
import { DomainQueryEntity } from './domain-query.entity';
import { FeedbackEntity } from './feedback.entity';
import { ListFeedMarkEntity } from './list-feed-mark.entity';
import { ListRowEntity } from './list-row.entity';
import { ListUsageEntity } from './list-usage.entity';
import { ListEntity } from './list.entity';
import { MemberEntity } from './member.entity';
import { OpenChargeEntity } from './open-charge.entity';
import { SessionEntity } from './session.entity';
import { VerificationEntity } from './verification.entity';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';
import { WidgetSettingsEntity } from './widget-settings.entity';

export {
  AccountEntity,
  ApiKeyEntity,
  AuditEntryEntity,
  AuthTokenEntity,
  CreditTransactionEntity,
  DomainEvidenceEntity,
  DomainQueryEntity,
  FeedbackEntity,
  ListEntity,
  ListFeedMarkEntity,
  ListRowEntity,
  ListUsageEntity,
  MemberEntity,
  OpenChargeEntity,
  SessionEntity,
  VerificationEntity,
  WebhookDeliveryEntity,
  WidgetSettingsEntity,
};
export type { AccountStatus } from './account.entity';
export type { KeyScope, KeyType } from './api-key.entity';
export type { AuthTokenKind } from './auth-token.entity';
export type { TransactionKind } from './credit-transaction.entity';
export type { EvidenceSource } from './domain-evidence.entity';
export type { FeedbackOutcome } from './feedback.entity';
export type { ListStatus } from './list.entity';
export type { MemberRole } from './member.entity';
export type { ChargedCheck, ChargeKind } from './open-charge.entity';
export type { UsageKind } from './verification.entity';
export type { WebhookStatus } from './webhook-delivery.entity';

/** Every table the migrations create has its entity here (libs/platform/db/src/schema.spec.ts holds them to it). */
export const ENTITIES = [
  AccountEntity,
  ApiKeyEntity,
  CreditTransactionEntity,
  VerificationEntity,
  ListEntity,
  ListRowEntity,
  ListFeedMarkEntity,
  FeedbackEntity,
  WidgetSettingsEntity,
  DomainEvidenceEntity,
  DomainQueryEntity,
  WebhookDeliveryEntity,
  OpenChargeEntity,
  MemberEntity,
  SessionEntity,
  AuthTokenEntity,
  AuditEntryEntity,
  ListUsageEntity,
];
