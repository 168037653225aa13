export { decideVerdict, type MailboxAnswer, type Reachable, type Reason, type Status, type UnknownCause, type Verdict, type VerdictInput } from './verdict';
