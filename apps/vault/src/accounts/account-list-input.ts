import { AppError, lookup } from '@app/http';
import { CustomFieldInput, isFileField, parseCustomFields } from '../resources/custom-fields';

export const MAX_ACCOUNTS_PER_REQUEST = 500;

export interface NewAccount {
  name: string;
  password: string;
  policy?: string;
  notes: string;
  customFields: CustomFieldInput[];
}

/** Op 20's ACCOUNTLIST: shape errors fail the whole request, before anything is written. */
export function parseAccountList(list: unknown[]): NewAccount[] {
  if (list.length === 0) throw AppError.invalid('ACCOUNTLIST is empty');
  if (list.length > MAX_ACCOUNTS_PER_REQUEST) throw AppError.invalid(`ACCOUNTLIST has ${list.length} entries; at most ${MAX_ACCOUNTS_PER_REQUEST} are allowed`);
  return list.map((entry, i) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      throw AppError.invalid(`ACCOUNTLIST[${i}] must be an object with ACCOUNTNAME and PASSWORD`);
    }
    const record = entry as Record<string, unknown>;
    const name = text(record, 'ACCOUNTNAME', i, 255, true).trim();
    const password = text(record, 'PASSWORD', i, 4096, true);
    const policy = text(record, 'ACCOUNTPASSWORDPOLICY', i, 100, false).trim();
    const notes = text(record, 'NOTES', i, 4000, false);
    const fields = lookup(record, 'ACCOUNTCUSTOMFIELD');
    if (fields !== undefined && !Array.isArray(fields)) throw AppError.invalid(`ACCOUNTLIST[${i}].ACCOUNTCUSTOMFIELD must be a list of {CUSTOMLABEL, CUSTOMVALUE}`);
    const customFields = parseCustomFields(fields as unknown[] | undefined, 'account');
    if (customFields.some(isFileField)) throw AppError.invalid(`ACCOUNTLIST[${i}]: file custom fields are not accepted here`);
    return { name, password, policy: policy || undefined, notes, customFields };
  });
}

function text(record: Record<string, unknown>, field: string, i: number, max: number, required: boolean): string {
  const value = lookup(record, field);
  if (value === undefined || value === null || value === '') {
    if (required) throw AppError.invalid(`ACCOUNTLIST[${i}].${field} is required`);
    return '';
  }
  if (typeof value !== 'string' && typeof value !== 'number') throw AppError.invalid(`ACCOUNTLIST[${i}].${field} must be text`);
  const s = String(value);
  if (s.length > max) throw AppError.invalid(`ACCOUNTLIST[${i}].${field} must be at most ${max} characters`);
  if (required && !s.trim()) throw AppError.invalid(`ACCOUNTLIST[${i}].${field} is required`);
  return s;
}
