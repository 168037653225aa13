export {
  decideVerdict,
  SUB_STATUSES,
  UNKNOWN_CAUSES,
  type MailboxAnswer,
  type Reachable,
  type Reason,
  type Status,
  type SubStatus,
  type UnknownCause,
  type Verdict,
  type VerdictInput,
} from './verdict';
