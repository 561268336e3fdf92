import { Type } from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';

export type Schema = Record<string, unknown>;

/**
 * The JSON Schema (2020-12, as OpenAPI 3.1 uses) of an INPUT_DATA DTO, read from its
 * class-validator metadata: the same rules the INPUT_DATA pipe enforces. Scalars arrive as
 * text as often as JSON values (docs/api/vault.md, "INPUT_DATA"), so numbers and booleans accept both.
 */
export function dtoSchema(dto: Type<object>): Schema {
  const byProperty = new Map<string, { name: string; constraints: unknown[] }[]>();
  for (const m of getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false)) {
    const list = byProperty.get(m.propertyName) ?? [];
    list.push({ name: m.name ?? m.type, constraints: m.constraints ?? [] });
    byProperty.set(m.propertyName, list);
  }
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  for (const [property, rules] of byProperty) {
    properties[property] = propertySchema(rules);
    const names = new Set(rules.map((r) => r.name));
    if ((names.has('isNotEmpty') || names.has('isDefined')) && !names.has('isOptional')) required.push(property);
  }
  return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: true };
}

function propertySchema(rules: { name: string; constraints: unknown[] }[]): Schema {
  const schema: Schema = {};
  const rule = (name: string) => rules.find((r) => r.name === name);
  if (rule('isArray')) schema.type = 'array';
  else if (rule('isInt')) schema.type = ['integer', 'string'];
  else if (rule('isBoolean')) {
    schema.type = ['boolean', 'string'];
    schema.description = 'true or false (text or JSON boolean)';
  } else if (rule('isString') || rule('isIn') || rule('matches') || rule('isEmail')) schema.type = 'string';
  const isIn = rule('isIn');
  if (isIn) schema.enum = [...(isIn.constraints[0] as unknown[])];
  const maxLength = rule('maxLength');
  if (maxLength) schema.maxLength = maxLength.constraints[0];
  const min = rule('min');
  if (min) schema.minimum = min.constraints[0];
  const max = rule('max');
  if (max) schema.maximum = max.constraints[0];
  const matches = rule('matches');
  const pattern = matches && (matches.constraints[0] instanceof RegExp ? (matches.constraints[0] as RegExp).source : matches.constraints[0]);
  if (typeof pattern === 'string') Object.assign(schema, portablePattern(pattern));
  if (rule('isEmail')) schema.format = 'email';
  return schema;
}

/**
 * Unicode property classes (\p{L}) are JavaScript's and not of every regex dialect a client or
 * validator of the document uses (Python's re refuses them): such a pattern goes under
 * x-pattern, described in words, instead of the standard `pattern`.
 */
function portablePattern(source: string): Schema {
  if (!/\\[pP]\{/.test(source)) return { pattern: source };
  return { 'x-pattern': source, description: 'letters and digits of any script, and the other characters of the pattern' };
}
