export { ResultStore } from './result-store';
export { buildEngine, buildGate, listOptions, superviseGate } from './runtime';
export { concludeHandler, inspectHandler, MAX_GREYLIST_RETRIES, probeHandler, stageHandlers, type StageOptions } from './stages';
