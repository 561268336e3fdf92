import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity('pgp_keys')
export class PgpKey {
  @PrimaryGeneratedColumn() id!: number;
  @Column({ unique: true }) userId!: number;
  @Column({ type: 'text' }) publicKey!: string;
  @Column({ type: 'bytea', select: false }) privateKey!: Buffer;
  @Column({ type: 'text' }) fingerprint!: string;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt!: Date;
}
