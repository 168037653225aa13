export {
  CreditLedger,
  type Balance,
  type DueCharge,
  type OpenCharge,
  type Settled,
  type TransactionPage,
  type UsageRecord,
} from './ledger';
export * from './pricing';
export { USAGE_REF_PREFIX, usageBetween, type UsageRow } from './usage';
