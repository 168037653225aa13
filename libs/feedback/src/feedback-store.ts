import type { DataSource } from 'typeorm';

export type Outcome = 'delivered' | 'bounced';

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

/** Customers' reports of what became of mail to addresses they checked (API.md #3). */
export class FeedbackStore {
  constructor(private readonly dataSource: () => DataSource) {}

  async record(entry: FeedbackEntry): Promise<void> {
    await this.dataSource().query('INSERT INTO feedback (account_id, email, key, domain, local_part, outcome) VALUES ($1, $2, $3, $4, $5, $6)', [
      entry.accountId,
      entry.email,
      entry.key,
      entry.domain,
      entry.localPart,
      entry.outcome,
    ]);
  }
}
