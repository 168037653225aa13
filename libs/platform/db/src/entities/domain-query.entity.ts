import { CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A local part checked at a catch-all domain (one row per address, its latest check): weak evidence of
 * the domain's pattern before any report (libs/checks/scoring/src/domain-model.ts), never of the address.
 */
@Entity('domain_queries')
// The migration orders it (domain, created_at DESC): the model reads a domain's newest queries first.
@Index('domain_queries_recent', ['domain', 'createdAt'])
@Index('domain_queries_created', ['createdAt'])
export class DomainQueryEntity {
  /** A-label. */
  @PrimaryColumn('text')
  domain!: string;

  /** Lower-cased. */
  @PrimaryColumn('text', { name: 'local_part' })
  localPart!: string;

  /** When it was last checked: the model reads the newest, retention erases from it. */
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
