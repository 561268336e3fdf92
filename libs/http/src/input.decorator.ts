import { createParamDecorator, ExecutionContext, Type } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validateSync, ValidationError } from 'class-validator';
import { AppError } from './app-error';
import { readField, uploadedFile } from './input-data';
import { ParsedRequest } from './request-body.middleware';

/**
 * `@Input(Dto)`: reads each property the DTO declares from INPUT_DATA Details, the query
 * string or form fields (exact name, then any case), converts and validates it with
 * class-validator, and throws one AppError naming the first bad field.
 */
export const Input = createParamDecorator((dto: Type<object>, ctx: ExecutionContext) => {
  const req = ctx.switchToHttp().getRequest<ParsedRequest>();
  return parseInput(dto, (name) => readField(req, name));
});

export function parseInput<T extends object>(dto: Type<T>, read: (name: string) => unknown): T {
  const plain: Record<string, unknown> = {};
  for (const property of declaredProperties(dto)) {
    const value = read(property);
    if (value !== undefined) plain[property] = normalise(value);
  }
  const instance = plainToInstance(dto, plain);
  const message = Object.keys(plain).length === 0 ? emptyInputMessage(dto, instance) : validationMessage(instance);
  if (message !== undefined) throw AppError.invalid(message);
  return instance;
}

function validationMessage(instance: object): string | undefined {
  const errors = validateSync(instance, { forbidUnknownValues: false, stopAtFirstError: true });
  return errors.length > 0 ? firstMessage(errors[0]) : undefined;
}

// A request naming none of a DTO's fields (most reads) gets the same verdict every time: it
// depends on the DTO alone, so it is worked out once (class-validator took ~2% of the read).
const emptyVerdicts = new WeakMap<Type<object>, { message?: string }>();

function emptyInputMessage(dto: Type<object>, instance: object): string | undefined {
  let verdict = emptyVerdicts.get(dto);
  if (!verdict) {
    verdict = { message: validationMessage(instance) };
    emptyVerdicts.set(dto, verdict);
  }
  return verdict.message;
}

/** The raw request, for handlers that need uploaded files. */
export const UploadedPart = createParamDecorator((part: string, ctx: ExecutionContext) =>
  uploadedFile(ctx.switchToHttp().getRequest<ParsedRequest>(), part),
);

// A DTO's decorators are all applied when its class is defined: its property list never changes.
const declared = new WeakMap<Type<object>, string[]>();

function declaredProperties(dto: Type<object>): string[] {
  let properties = declared.get(dto);
  if (!properties) {
    const metas = getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false);
    properties = [...new Set(metas.map((m) => m.propertyName))];
    declared.set(dto, properties);
  }
  return properties;
}

// Numbers and booleans arrive as text or as JSON values; DTOs see text for scalars.
function normalise(value: unknown): unknown {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && value.length === 1 && typeof value[0] === 'string') return value[0];
  return value;
}

function firstMessage(error: ValidationError): string {
  // A missing value fails every constraint; "is required" is the one that helps.
  if (error.constraints) return error.constraints.isNotEmpty ?? Object.values(error.constraints)[0];
  const child = error.children?.[0];
  return child ? firstMessage(child) : `${error.property} is invalid`;
}
