import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** File Store / License Store contents and custom-field files, sealed at rest. */
@Entity('stored_files')
@Index(['resourceId', 'accountId'])
export class StoredFile {
  @PrimaryGeneratedColumn() id!: number;
  @Column() resourceId!: number;
  @Column({ type: 'int', nullable: true }) accountId!: number | null;
  @Column({ type: 'int', nullable: true }) customFieldId!: number | null;
  @Column({ type: 'text' }) fileName!: string;
  @Column({ type: 'text' }) contentType!: string;
  @Column() size!: number;
  @Column({ type: 'bytea', select: false }) content!: Buffer;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt!: Date;
}
