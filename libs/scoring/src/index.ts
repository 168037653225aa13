export { catchAllConfidence, type CatchAllConfidence, type CatchAllFeatures, type Signal } from './catch-all-confidence';
