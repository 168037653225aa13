import { AccountEntity } from './account.entity';
import { ApiKeyEntity } from './api-key.entity';
import { CreditTransactionEntity } from './credit-transaction.entity';
import { VerificationEntity } from './verification.entity';

export { AccountEntity, ApiKeyEntity, CreditTransactionEntity, VerificationEntity };
export type { KeyScope, KeyType } from './api-key.entity';
export type { TransactionKind } from './credit-transaction.entity';
export type { UsageKind } from './verification.entity';

export const ENTITIES = [AccountEntity, ApiKeyEntity, CreditTransactionEntity, VerificationEntity];
