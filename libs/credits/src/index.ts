export { CreditLedger, type Balance, type TransactionPage } from './ledger';
export { usageBetween, type UsageRow } from './usage';
