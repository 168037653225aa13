export { calibrate, fitCalibration, REGIMES, regimeOf, type CalibrationMap, type Regime } from './calibration';
export { CALIBRATION_MAPS } from './calibration-map';
export { catchAllConfidence, type CatchAllConfidence, type CatchAllFeatures } from './catch-all-confidence';
export { learnDomain, MAX_QUERIES, type DomainModel, type Evidence, type EvidenceSource } from './domain-model';
export { patternFits, PATTERNS, readPattern } from './patterns';
export type { Signal } from './signal';
