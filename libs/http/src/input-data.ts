import { AppError } from './app-error';
import { refuseUnstorable } from './edge-input';
import { InputDataSyntaxError, parseLenientJson } from './lenient-json';
import { ParsedRequest } from './parsed-request';
import { loadUpload } from './upload-storage';

type Fields = Record<string, unknown>;

/** Case-insensitive view of a flat record: exact key first, then any case (docs/api/vault.md, "INPUT_DATA"). */
export function lookup(record: Fields | undefined, name: string): unknown {
  if (!record) return undefined;
  if (Object.prototype.hasOwnProperty.call(record, name)) return record[name];
  const lower = name.toLowerCase();
  for (const key of Object.keys(record)) if (key.toLowerCase() === lower) return record[key];
  return undefined;
}

/**
 * The Details object of INPUT_DATA, wherever it came from: query string, urlencoded or
 * multipart field, or a raw JSON body. Accepts {operation:{Details}}, {Details} or a flat object.
 */
export function readInputData(req: ParsedRequest): Fields {
  const cached = (req as { inputData?: Fields }).inputData;
  if (cached) return cached;
  if (req.bodyError) throw req.bodyError;
  const text =
    asText(lookup(req.query as Fields, 'INPUT_DATA')) ?? asText(lookup(req.body, 'INPUT_DATA')) ?? req.rawInput;
  let details: Fields = {};
  if (text !== undefined && text.trim() !== '') {
    let parsed: unknown;
    try {
      parsed = parseLenientJson(text);
    } catch (error) {
      if (error instanceof InputDataSyntaxError) throw AppError.invalid(error.message);
      throw AppError.invalid('INPUT_DATA could not be parsed');
    }
    details = unwrapDetails(parsed);
    for (const key of Object.keys(details)) refuseUnstorable(key, details[key]);
  }
  (req as { inputData?: Fields }).inputData = details;
  return details;
}

function unwrapDetails(parsed: unknown): Fields {
  if (!isRecord(parsed)) throw AppError.invalid('INPUT_DATA must be a JSON object');
  const operation = lookup(parsed, 'operation');
  const holder = isRecord(operation) ? operation : parsed;
  const details = lookup(holder, 'Details');
  if (details === undefined) return holder === parsed ? parsed : {};
  if (!isRecord(details)) throw AppError.invalid('INPUT_DATA operation.Details must be an object');
  return details;
}

/** INPUT_DATA Details, then query parameters, then form fields: the merged, case-insensitive input. */
export function readField(req: ParsedRequest, name: string): unknown {
  const value = lookup(readInputData(req), name);
  // A JSON null ("TICKETID": null) is a field not given: class-validator's IsOptional lets
  // null through, and readers default only what is absent (a null REASON reached .slice).
  if (value !== undefined && value !== null) return value;
  const fromForm = lookup(req.query as Fields, name) ?? lookup(req.body, name);
  refuseUnstorable(name, fromForm);
  return fromForm;
}

export function uploadedFile(req: ParsedRequest, part: string): Express.Multer.File | undefined {
  if (req.bodyError) throw req.bodyError;
  const files = uploadedFiles(req);
  const found = files.find((f) => f.fieldname === part) ?? files.find((f) => f.fieldname.toLowerCase() === part.toLowerCase());
  return found && loadUpload(found);
}

/** Every file of a multipart body, in order (contents still on disk until loadUpload). */
export function uploadedFiles(req: ParsedRequest): Express.Multer.File[] {
  return Array.isArray(req.files) ? req.files : Object.values(req.files ?? {}).flat();
}

function asText(value: unknown): string | undefined {
  if (Array.isArray(value)) return asText(value[0]);
  return typeof value === 'string' ? value : undefined;
}

function isRecord(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
