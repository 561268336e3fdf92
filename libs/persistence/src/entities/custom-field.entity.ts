import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** A label/value pair on a resource (accountId null) or on one of its accounts. */
@Entity('custom_fields')
@Index(['resourceId', 'accountId'])
export class CustomField {
  @PrimaryGeneratedColumn() id!: number;
  @Column() resourceId!: number;
  @Column({ type: 'int', nullable: true }) accountId!: number | null;
  @Column({ type: 'text' }) label!: string;
  @Column({ type: 'text', default: '' }) value!: string;
  /** Character, Password, Numeric, Date, File ... as sent by the client. */
  @Column({ type: 'text', default: 'Character' }) type!: string;
  @Column() position!: number;
}
