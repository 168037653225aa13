export { CreditLedger, type Balance, type TransactionPage, type UsageRecord } from './ledger';
export { usageBetween, type UsageRow } from './usage';
