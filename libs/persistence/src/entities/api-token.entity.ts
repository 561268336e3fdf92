import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** API tokens are stored only as SHA-256; the token itself is shown once. */
@Entity('api_tokens')
export class ApiToken {
  @PrimaryGeneratedColumn() id!: number;
  @Index() @Column() userId!: number;
  @Column({ type: 'bytea', unique: true }) tokenHash!: Buffer;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt!: Date;
}
