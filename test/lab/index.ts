export { startLab, type Lab, type LabOptions } from './lab';
export type { Scenario, ServerSpec, DomainSpec } from './scenario';
export type { SmtpStats } from './smtp-server';
export { loadScenario, DEFAULT_SCENARIO } from './scenario';
export type { LabMailRelay, RelayedMessage } from './mail-relay';
