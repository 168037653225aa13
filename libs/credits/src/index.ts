export { CreditLedger, type Balance, type TransactionPage, type UsageRecord } from './ledger';
export * from './pricing';
export { usageBetween, type UsageRow } from './usage';
