import { AppError, lookup } from '@app/http';

export const MAX_CUSTOM_FIELDS_PER_LEVEL = 20;

export interface CustomFieldInput {
  label: string;
  value: string;
  type: string;
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
