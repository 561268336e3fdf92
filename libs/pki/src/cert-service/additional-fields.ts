import { AppError } from '@app/http';

/** An additional field an administrator defined: free text, or a drop-down of `options`. */
export interface AdditionalFieldDefinition {
  id: number;
  name: string;
  options: string[] | null;
}

export interface FieldValue {
  name: string;
  value: string;
}

const MAX_VALUES = 100;
const MAX_VALUE_LENGTH = 2000;

/** `[{ADDITIONALFIELDNAME, ADDITIONALFIELDVALUE}]` as KMP sends it; each entry checked, naming what is wrong. */
export function parseFieldData(input: unknown[]): FieldValue[] {
  if (input.length > MAX_VALUES) throw AppError.invalid(`sslAdditionalFieldData has ${input.length} entries; at most ${MAX_VALUES}`);
  return input.map((entry, i) => {
    const e = (entry ?? {}) as Record<string, unknown>;
    const name = e.ADDITIONALFIELDNAME;
    const value = e.ADDITIONALFIELDVALUE;
    if (typeof name !== 'string' || name.trim() === '') throw AppError.invalid(`sslAdditionalFieldData[${i}].ADDITIONALFIELDNAME is required`);
    if (value !== undefined && value !== null && typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw AppError.invalid(`sslAdditionalFieldData[${i}].ADDITIONALFIELDVALUE must be text`);
    }
    const text = value === undefined || value === null ? '' : String(value);
    if (text.length > MAX_VALUE_LENGTH) throw AppError.invalid(`sslAdditionalFieldData[${i}].ADDITIONALFIELDVALUE must be at most ${MAX_VALUE_LENGTH} characters`);
    return { name: name.trim(), value: text };
  });
}

/**
 * Matches each value to its definition (names case-insensitively, a drop-down's option in its
 * defined spelling). An unknown field, or a value outside a drop-down's options, is refused
 * naming it: the values are an administrator's schema, not free-form tags. An empty value clears.
 */
export function resolveFieldValues(definitions: AdditionalFieldDefinition[], values: FieldValue[]): { field: AdditionalFieldDefinition; value: string }[] {
  const byName = new Map(definitions.map((d) => [d.name.toLowerCase(), d]));
  const seen = new Set<number>();
  return values.map(({ name, value }) => {
    const field = byName.get(name.toLowerCase());
    if (!field) {
      const known = definitions.length
        ? `defined: ${definitions.map((d) => d.name).join(', ')}`
        : 'none is defined; an administrator defines them with the admin command certificate-field';
      throw AppError.invalid(`No additional field named ${name} (${known})`);
    }
    if (seen.has(field.id)) throw AppError.invalid(`Additional field ${field.name} is given twice`);
    seen.add(field.id);
    if (value === '' || !field.options) return { field, value };
    const option = field.options.find((o) => o.toLowerCase() === value.trim().toLowerCase());
    if (!option) throw AppError.invalid(`${value} is not an option of additional field ${field.name} (options: ${field.options.join(', ')})`);
    return { field, value: option };
  });
}

/** A field name an administrator may define: printable, no commas (the CLI lists options with them). */
export function checkFieldName(name: string): string {
  const trimmed = name.trim();
  if (!/^[^\x00-\x1f,]{1,100}$/.test(trimmed)) throw AppError.invalid('An additional field name is 1-100 printable characters without commas');
  return trimmed;
}
