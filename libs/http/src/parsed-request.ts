import { Request } from 'express';
import type { AppError } from './app-error';

/** A request as the body reader leaves it for the handlers (its own file: every reader of a body imports it). */
export interface ParsedRequest extends Request {
  /** A raw JSON body ({"operation":{...}}), treated as INPUT_DATA. */
  rawInput?: string;
  /** A body that could not be read; raised when the handler asks for input. */
  bodyError?: AppError;
  /** The token from a trailing /AUTHTOKEN=<token> path segment (pki). */
  pathToken?: string;
  files?: Express.Multer.File[] | Record<string, Express.Multer.File[]>;
  /** A binary body kept as bytes (application/ocsp-request). */
  rawBody?: Buffer;
}
