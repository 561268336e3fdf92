import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/**
 * Data keys encrypt secrets; each is stored wrapped by a master key. During a master
 * key rotation a data key has one row per master key, so running instances keep working.
 */
@Entity('data_keys')
export class DataKey {
  @PrimaryColumn() version!: number;
  /** First 16 hex characters of SHA-256 of the master key. */
  @PrimaryColumn({ type: 'text' }) masterKeyId!: string;
  @Column({ type: 'bytea' }) wrapped!: Buffer;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt!: Date;
}
