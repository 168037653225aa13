export { calibrate, fitCalibration, type CalibrationMap } from './calibration';
export { catchAllConfidence, type CatchAllConfidence, type CatchAllFeatures, type Signal } from './catch-all-confidence';
export { learnDomain, type DomainModel, type Evidence, type EvidenceSource } from './domain-model';
export { patternFits, PATTERNS, readPattern } from './patterns';
