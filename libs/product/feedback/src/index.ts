export { DomainKnowledge } from './domain-knowledge';
export { FeedbackStore, type FeedbackEntry, type Outcome } from './feedback-store';
