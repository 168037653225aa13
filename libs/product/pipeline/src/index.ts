export { ChargeSweep, SWEPT_REASON, type SweptCharge } from './charge-sweep';
export { ResultStore } from './result-store';
export { STAGE_HANDLERS } from './stage-handlers';
export { ConcludeHandler, InspectHandler, ProbeHandler, probeHandler } from './stages';
