import { Column, CreateDateColumn, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

/**
 * One row per audited event, written in the same transaction as the change it records.
 * The background sealer links it into the hash chain later, in id order (AuditSeal).
 */
@Entity('audit')
@Index('audit_org_category_created_id', ['orgId', 'category', 'createdAt', 'id'])
@Index(['accountId', 'createdAt'])
export class AuditEntry {
  @PrimaryGeneratedColumn({ type: 'bigint' }) id!: string;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt!: Date;
  @Column({ type: 'int', nullable: true }) orgId!: number | null;
  /** Resource, User or Pki: the AUDITTYPE a reader filters on. */
  @Column({ type: 'text' }) category!: string;
  @Column({ type: 'text' }) operation!: string;
  @Column({ type: 'text' }) outcome!: string;
  @Column({ type: 'int', nullable: true }) actorId!: number | null;
  @Column({ type: 'text', default: '' }) actorName!: string;
  @Column({ type: 'text', default: '' }) ip!: string;
  @Column({ type: 'text', default: '' }) client!: string;
  @Column({ type: 'int', nullable: true }) resourceId!: number | null;
  @Column({ type: 'text', default: '' }) resourceName!: string;
  @Column({ type: 'int', nullable: true }) accountId!: number | null;
  @Column({ type: 'text', default: '' }) accountName!: string;
  /** The object acted on when it is not a resource/account (user name, key, certificate...). */
  @Column({ type: 'text', default: '' }) target!: string;
  @Column({ type: 'text', default: '' }) reason!: string;
  @Column({ type: 'text', default: '' }) ticketId!: string;
  @Column({ type: 'int', nullable: true }) requestId!: number | null;
  @Column({ type: 'text', default: '' }) description!: string;
}

/** The chain link of one sealed audit row: kept apart so sealing never rewrites the wide audit row. */
@Entity('audit_seals')
export class AuditSeal {
  @PrimaryColumn({ type: 'bigint', primaryKeyConstraintName: 'PK_audit_seals' }) auditId!: string;
  /** Id of the row sealed just before this one (0 for the first). */
  @Column({ type: 'bigint' }) prevId!: string;
  @Column({ type: 'bytea' }) hash!: Buffer;
}

/** Sealed audit rows per organisation, category and hour since the epoch: exact totals without counting. */
@Entity('audit_counts')
export class AuditCount {
  @PrimaryColumn({ type: 'int', primaryKeyConstraintName: 'PK_audit_counts' }) orgId!: number;
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'PK_audit_counts' }) category!: string;
  @PrimaryColumn({ type: 'bigint', primaryKeyConstraintName: 'PK_audit_counts' }) hour!: string;
  @Column({ type: 'bigint' }) rows!: string;
}

/** Periodic signed points of the audit hash chain, so a verifier can start mid-way. */
@Entity('audit_checkpoints')
export class AuditCheckpoint {
  @PrimaryGeneratedColumn() id!: number;
  @Column({ type: 'bigint' }) lastAuditId!: string;
  @Column({ type: 'bytea' }) chainHash!: Buffer;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt!: Date;
}
