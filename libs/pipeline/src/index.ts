export { ResultStore } from './result-store';
export { bullOptions, buildEngine, buildGate, listOptions, superviseGate } from './runtime';
export { concludeHandler, inspectHandler, probeHandler, stageHandlers } from './stages';
