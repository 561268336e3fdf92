import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsNotEmpty, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

// Composed validators whose messages name the field as clients send it. Transforms run
// first (class-transformer), then validation checks the converted value.

export function RequiredText(max = 255) {
  return applyDecorators(
    Transform(({ value }) => (typeof value === 'string' ? value.trim() : value)),
    IsNotEmpty({ message: '$property is required' }),
    IsString({ message: '$property must be text' }),
    MaxLength(max, { message: `$property must be at most ${max} characters` }),
  );
}

/** Passwords and other secrets: required, kept exactly as sent (no trimming). */
export function RequiredSecret(max = 4096) {
  return applyDecorators(
    IsNotEmpty({ message: '$property is required' }),
    IsString({ message: '$property must be text' }),
    MaxLength(max, { message: `$property must be at most ${max} characters` }),
  );
}

/** A secret that may be left out (then a default applies), but not sent empty; kept exactly as sent. */
export function OptionalSecret(max = 4096) {
  return applyDecorators(
    IsOptional(),
    IsNotEmpty({ message: '$property must not be empty' }),
    IsString({ message: '$property must be text' }),
    MaxLength(max, { message: `$property must be at most ${max} characters` }),
  );
}

export function OptionalText(max = 1000) {
  return applyDecorators(
    IsOptional(),
    IsString({ message: '$property must be text' }),
    MaxLength(max, { message: `$property must be at most ${max} characters` }),
  );
}

/** "true"/"false" as text (any case) or a JSON boolean. */
export function OptionalBoolean() {
  return applyDecorators(
    IsOptional(),
    Transform(({ value }) => parseBoolean(value)),
    IsBoolean({ message: '$property must be true or false' }),
  );
}

// Ids and counts are PostgreSQL integer columns: a larger number is refused here, naming
// the field, rather than by the database.
export const INT4_MAX = 2_147_483_647;

/** A whole number sent as text or as a number. */
export function OptionalInteger(min = 0, max = INT4_MAX) {
  return applyDecorators(
    IsOptional(),
    Transform(({ value }) => (typeof value === 'string' && /^\s*-?\d+\s*$/.test(value) ? Number(value) : value)),
    IsInt({ message: '$property must be a whole number' }),
    Min(min, { message: `$property must be at least ${min}` }),
    Max(max, { message: `$property must be at most ${max}` }),
  );
}

export function RequiredInteger(min = 0, max = INT4_MAX) {
  return applyDecorators(
    IsNotEmpty({ message: '$property is required' }),
    Transform(({ value }) => (typeof value === 'string' && /^\s*-?\d+\s*$/.test(value) ? Number(value) : value)),
    IsInt({ message: '$property must be a whole number' }),
    Min(min, { message: `$property must be at least ${min}` }),
    Max(max, { message: `$property must be at most ${max}` }),
  );
}

/** One of a fixed set, matched case-insensitively and returned in its canonical spelling. */
export function OneOf(values: readonly string[], optional = true) {
  const decorators = [
    Transform(({ value }) =>
      typeof value === 'string' ? (values.find((v) => v.toLowerCase() === value.trim().toLowerCase()) ?? value) : value,
    ),
    IsIn(values as string[], { message: `$property must be one of: ${values.join(', ')}` }),
  ];
  return applyDecorators(...(optional ? [IsOptional(), ...decorators] : [IsNotEmpty({ message: '$property is required' }), ...decorators]));
}

export function parseBoolean(value: unknown): unknown {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const v = value.trim().toLowerCase();
    if (v === 'true') return true;
    if (v === 'false') return false;
  }
  return value;
}
