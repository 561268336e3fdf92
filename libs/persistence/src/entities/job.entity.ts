import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** A long-running operation (range discovery...) run in the background, with progress. */
@Entity('jobs')
export class Job {
  @PrimaryGeneratedColumn() id!: number;
  @Column() orgId!: number;
  @Column({ type: 'text' }) kind!: string;
  @Column({ type: 'text' }) status!: 'running' | 'done' | 'failed';
  @Column({ default: 0 }) total!: number;
  @Column({ default: 0 }) done!: number;
  @Column({ type: 'jsonb', default: {} }) result!: Record<string, unknown>;
  @Column({ type: 'int', nullable: true }) createdBy!: number | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt!: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt!: Date;
}
