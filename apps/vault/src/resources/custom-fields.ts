import { EntityManager } from 'typeorm';
import { AppError, lookup } from '@app/http';

export const MAX_CUSTOM_FIELDS_PER_LEVEL = 20;

export interface CustomFieldInput {
  label: string;
  value: string;
  type: string;
}

/** A custom field whose content is a file: CUSTOMVALUE names the multipart part carrying it. */
export function isFileField(field: { type: string }): boolean {
  return field.type.trim().toLowerCase() === 'file';
}

/** RESOURCECUSTOMFIELD / ACCOUNTCUSTOMFIELD: at most 20 {CUSTOMLABEL, CUSTOMVALUE} per level. */
export function parseCustomFields(list: unknown[] | undefined, level: 'resource' | 'account'): CustomFieldInput[] {
  if (!list) return [];
  const field = level === 'resource' ? 'RESOURCECUSTOMFIELD' : 'ACCOUNTCUSTOMFIELD';
  if (list.length > MAX_CUSTOM_FIELDS_PER_LEVEL) {
    throw AppError.invalid(
      `${field} has ${list.length} entries: at most ${MAX_CUSTOM_FIELDS_PER_LEVEL} custom fields are allowed at ${level} level`,
    );
  }
  const seen = new Set<string>();
  return list.map((entry, i) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      throw AppError.invalid(`${field}[${i}] must be an object with CUSTOMLABEL and CUSTOMVALUE`);
    }
    const record = entry as Record<string, unknown>;
    const label = lookup(record, 'CUSTOMLABEL');
    const value = lookup(record, 'CUSTOMVALUE') ?? '';
    const type = lookup(record, 'CUSTOMTYPE') ?? lookup(record, 'CUSTOMFIELDTYPE') ?? 'Character';
    if (typeof label !== 'string' || !label.trim()) throw AppError.invalid(`${field}[${i}].CUSTOMLABEL is required`);
    if (label.length > 100) throw AppError.invalid(`${field}[${i}].CUSTOMLABEL must be at most 100 characters`);
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw AppError.invalid(`${field}[${i}].CUSTOMVALUE must be text`);
    }
    if (String(value).length > 4000) throw AppError.invalid(`${field}[${i}].CUSTOMVALUE must be at most 4000 characters`);
    if (typeof type !== 'string' || type.length > 50) throw AppError.invalid(`${field}[${i}].CUSTOMTYPE must be text`);
    const key = label.trim().toLowerCase();
    if (seen.has(key)) throw AppError.invalid(`${field} has the label "${label.trim()}" twice`);
    seen.add(key);
    return { label: label.trim(), value: String(value), type };
  });
}

/** Inserts new fields; returns their ids in order. */
export async function insertCustomFields(
  m: EntityManager,
  resourceId: number,
  accountId: number | null,
  fields: CustomFieldInput[],
): Promise<number[]> {
  const ids: number[] = [];
  for (const [position, f] of fields.entries()) {
    const [row] = await m.query(
      'INSERT INTO custom_fields (resource_id, account_id, label, value, type, position) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id',
      [resourceId, accountId, f.label, f.value, f.type, position],
    );
    ids.push(row.id);
  }
  return ids;
}

/**
 * Edits: a sent label updates the field of that label, a new label is added; fields not
 * sent stay. File fields are set only when the resource or account is created.
 */
export async function mergeCustomFields(
  m: EntityManager,
  resourceId: number,
  accountId: number | null,
  fields: CustomFieldInput[],
  level: 'resource' | 'account',
): Promise<void> {
  if (fields.length === 0) return;
  const existing: { id: number; label: string; type: string; position: number }[] = await m.query(
    'SELECT id, label, type, position FROM custom_fields WHERE resource_id = $1 AND account_id IS NOT DISTINCT FROM $2',
    [resourceId, accountId],
  );
  const byLabel = new Map(existing.map((f) => [f.label.toLowerCase(), f]));
  const added = fields.filter((f) => !byLabel.has(f.label.toLowerCase()));
  if (existing.length + added.length > MAX_CUSTOM_FIELDS_PER_LEVEL) {
    throw AppError.invalid(`At most ${MAX_CUSTOM_FIELDS_PER_LEVEL} custom fields are allowed at ${level} level; this edit would make ${existing.length + added.length}`);
  }
  let position = Math.max(-1, ...existing.map((f) => f.position)) + 1;
  for (const f of fields) {
    const current = byLabel.get(f.label.toLowerCase());
    if (isFileField(f) || (current && isFileField(current))) {
      throw AppError.invalid(`Custom field ${f.label}: file fields can only be set when the ${level} is created`);
    }
    if (current) {
      await m.query('UPDATE custom_fields SET value = $2, type = $3 WHERE id = $1', [current.id, f.value, f.type]);
    } else {
      await m.query(
        'INSERT INTO custom_fields (resource_id, account_id, label, value, type, position) VALUES ($1, $2, $3, $4, $5, $6)',
        [resourceId, accountId, f.label, f.value, f.type, position++],
      );
    }
  }
}

export async function customFieldsOf(
  m: EntityManager,
  resourceId: number,
  accountId: number | null,
): Promise<Record<string, string>[]> {
  const rows: { label: string; value: string; type: string }[] = await m.query(
    `SELECT label, value, type FROM custom_fields WHERE resource_id = $1 AND account_id IS NOT DISTINCT FROM $2 ORDER BY position`,
    [resourceId, accountId],
  );
  return rows.map((f) => ({ CUSTOMFIELDLABEL: f.label, CUSTOMFIELDVALUE: f.value, CUSTOMFIELDTYPE: f.type }));
}
