import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** Server settings (reason required, ticketing...), per organisation. */
@Entity('settings')
export class Setting {
  @PrimaryColumn() orgId!: number;
  @PrimaryColumn({ type: 'text' }) key!: string;
  @Column({ type: 'jsonb' }) value!: unknown;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt!: Date;
}
