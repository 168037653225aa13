import type { DataSource } from 'typeorm';
import { FeedbackEntity, type FeedbackOutcome } from '@mailguard/db';

export type Outcome = FeedbackOutcome;

export interface FeedbackEntry {
  accountId: string;
  email: string;
  /** The normalised address (the result cache's key). */
  key: string;
  /** A-label domain and lower-cased local part: what the catch-all model learns by. */
  domain: string;
  localPart: string;
  outcome: Outcome;
}

/** Customers' reports of what became of mail to addresses they checked (docs/api.md endpoint #3). */
export class FeedbackStore {
  constructor(private readonly dataSource: () => DataSource) {}

  async record(entry: FeedbackEntry): Promise<void> {
    await this.dataSource().getRepository(FeedbackEntity).insert(entry);
  }
}
