export { ChargeSweep, CHARGE_SWEEP_MAX_MS, SWEPT_REASON, type SweptCharge } from './charge-sweep';
export { ResultStore } from './result-store';
export { listOptions } from './runtime';
export { concludeHandler, inspectHandler, probeHandler, stageHandlers } from './stages';
