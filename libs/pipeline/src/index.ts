export { ResultStore } from './result-store';
export { bullOptions, listOptions } from './runtime';
export { concludeHandler, inspectHandler, probeHandler, stageHandlers } from './stages';
