export { classifyReply, type ReplyClass, type SmtpStage } from './classify';
export {
  directConnector,
  localConnector,
  socksConnector,
  SmtpError,
  SmtpSession,
  type Connector,
  type SocksProxy,
} from './client';
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
export { detectProvider, providerAcceptsAll, providerRunsFleet } from './provider';
export { buildReply, ReplyParser, replyLine, type SmtpReply } from './reply';
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
export {
  blockField,
  blockKey,
  buildEgress,
  EgressPool,
  MemoryEgressBlocks,
  STRIKE_MEMORY_MS,
  type Egress,
  type EgressBlock,
  type EgressBlockStore,
  type EgressObserver,
} from './egress';
