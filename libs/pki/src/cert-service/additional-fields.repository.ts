import { EntityManager } from 'typeorm';
import { AdditionalFieldDefinition } from './additional-fields';

type Runner = Pick<EntityManager, 'query'>;

/** The additional fields an organisation's administrators defined for SSL certificates. */
export function fieldDefinitions(m: Runner, orgId: number): Promise<AdditionalFieldDefinition[]> {
  return m.query('SELECT id, name, options FROM ssl_additional_fields WHERE org_id = $1 ORDER BY lower(name)', [orgId]);
}

/** Defines (or redefines the options of) a field; true when it is new. */
export async function defineField(m: Runner, orgId: number, name: string, options: string[] | null): Promise<boolean> {
  const [row] = await m.query(
    `INSERT INTO ssl_additional_fields (org_id, name, options) VALUES ($1, $2, $3)
     ON CONFLICT (org_id, lower(name)) DO UPDATE SET options = EXCLUDED.options RETURNING (xmax = 0) AS created`,
    [orgId, name, options],
  );
  return row.created;
}

/** Removes a field and every value of it; false when there was none of that name. */
export async function removeField(m: Runner, orgId: number, name: string): Promise<boolean> {
  const rows = await m.query('DELETE FROM ssl_additional_fields WHERE org_id = $1 AND lower(name) = lower($2) RETURNING id', [orgId, name]);
  return rows.length > 0;
}

/** Sets (an empty value: clears) a certificate's value of each field given. */
export async function setFieldValues(m: Runner, certificateId: number, values: { field: { id: number }; value: string }[]): Promise<void> {
  for (const { field, value } of values) {
    if (value === '') {
      await m.query('DELETE FROM certificate_field_values WHERE certificate_id = $1 AND field_id = $2', [certificateId, field.id]);
    } else {
      await m.query(
        `INSERT INTO certificate_field_values (certificate_id, field_id, value) VALUES ($1, $2, $3)
         ON CONFLICT (certificate_id, field_id) DO UPDATE SET value = EXCLUDED.value`,
        [certificateId, field.id, value],
      );
    }
  }
}

export interface FieldEntry {
  ADDITIONALFIELDNAME: string;
  ADDITIONALFIELDVALUE: string;
}

/** Each certificate's field values, in the shape the update operations take. */
export async function fieldValuesOf(m: Runner, orgId: number, certificateIds: number[]): Promise<Map<number, FieldEntry[]>> {
  const values = new Map<number, FieldEntry[]>();
  if (certificateIds.length === 0) return values;
  const rows: { certificate_id: number; name: string; value: string }[] = await m.query(
    `SELECT v.certificate_id, f.name, v.value FROM certificate_field_values v JOIN ssl_additional_fields f ON f.id = v.field_id
     WHERE f.org_id = $1 AND v.certificate_id = ANY($2) ORDER BY lower(f.name)`,
    [orgId, certificateIds],
  );
  for (const row of rows) {
    const list = values.get(row.certificate_id) ?? [];
    list.push({ ADDITIONALFIELDNAME: row.name, ADDITIONALFIELDVALUE: row.value });
    values.set(row.certificate_id, list);
  }
  return values;
}
