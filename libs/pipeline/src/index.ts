export { ResultStore } from './result-store';
export { bullOptions, listOptions } from './runtime';
export { concludeHandler, inspectHandler, MAX_GREYLIST_RETRIES, probeHandler, stageHandlers, type StageOptions } from './stages';
