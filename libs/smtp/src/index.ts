export { classifyReply, type ReplyClass, type SmtpStage } from './classify';
export { directConnector, socksConnector, SmtpError, SmtpSession, type Connector, type SocksProxy } from './client';
export {
  asksToRetryLater,
  probeMailboxes,
  RecipientLimits,
  type GroupProbeResult,
  type ProbeFailure,
  type ProbeHost,
  type ProbeOptions,
  type ProbeResult,
} from './probe';
export { detectProvider, providerAcceptsAll } from './provider';
export { buildReply, ReplyParser, type SmtpReply } from './reply';
export {
  CoolingDownError,
  GateAbortedError,
  LEASE_GRACE_MS,
  LeaseBook,
  MemorySessionGate,
  type CoolDownReason,
  type GateObserver,
  type GateSnapshot,
  type SessionGate,
  type SlotLease,
  type SlotRequest,
} from './session-gate';
export { TlsSessionCache } from './tls-sessions';
export { PROBES_PER_SESSION, SessionPool, type PooledSession } from './session-pool';
