export { ChargeSweep, SWEPT_REASON, type SweptCharge } from './charge-sweep';
export { ResultStore } from './result-store';
export { listOptions } from './runtime';
export { concludeHandler, inspectHandler, probeHandler, stageHandlers } from './stages';
