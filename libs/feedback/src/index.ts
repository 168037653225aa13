export { FeedbackStore, type FeedbackEntry, type Outcome } from './feedback-store';
