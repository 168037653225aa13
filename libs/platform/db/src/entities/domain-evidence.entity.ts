import { Check, Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

export type EvidenceSource = 'verified' | 'avatar' | 'finder';

/** An address known to exist at a domain (one row per address): what its pattern is learnt from. */
@Entity('domain_evidence')
// The migration orders it (domain, created_at DESC): the model reads a domain's newest evidence first.
@Index('domain_evidence_recent', ['domain', 'createdAt'])
@Index('domain_evidence_created', ['createdAt'])
@Check('domain_evidence_source_check', "source IN ('verified', 'avatar', 'finder')")
export class DomainEvidenceEntity {
  /** A-label. */
  @PrimaryColumn('text')
  domain!: string;

  /** Lower-cased. */
  @PrimaryColumn('text', { name: 'local_part' })
  localPart!: string;

  @Column('text')
  source!: EvidenceSource;

  /** The finder's pattern for a finder hit; null when the pattern is to be inferred. */
  @Column('text', { nullable: true })
  pattern!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
