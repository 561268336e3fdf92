import { NextFunction, Request, Response } from 'express';
import multer from 'multer';
import { AppError, ErrorCode } from './app-error';
import { splitUrl } from './split-url';
import { extractToken } from './token';
import { removeRequestUploads, TempFileStorage } from './upload-storage';

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

/** How much a request body may cost, and how a token is checked before any of it is read. */
export interface RequestBodyOptions {
  /** Largest file of a multipart body (MAX_FILE_SIZE). */
  maxFileSize: number;
  /** This process's folder for multipart files in progress (under DATA_DIR); each request gets its own sub-folder. */
  uploadDir: string;
  /** All files of one multipart body together (MAX_UPLOAD_TOTAL). */
  maxUploadBytes: number;
  /** Multipart bodies being received at once (MAX_CONCURRENT_UPLOADS); more answer Failed unread. */
  maxConcurrentUploads: number;
  /**
   * Whether a token exists. Asked before any body is read when the token is in a header,
   * the query or the path: an unknown token's body is never read (the guard then refuses).
   * Gets the request, so that the look-up can serve the guard too (see Authenticator).
   */
  isKnownToken?: (token: string, req: ParsedRequest) => Promise<boolean>;
}

/**
 * Reads every body the real clients send: urlencoded whatever the Content-Type says
 * (they label it text/json, application/json or nothing), a raw JSON document, or
 * multipart with files (streamed to temporary files, removed when the request ends).
 * Never throws: a bad body is reported when input is read.
 */
export function requestBodyMiddleware(options: RequestBodyOptions) {
  const { maxFileSize, maxUploadBytes, maxConcurrentUploads } = options;
  const storage = new TempFileStorage(options.uploadDir, maxUploadBytes);
  const upload = multer({
    storage,
    limits: { fileSize: maxFileSize, files: 10, fields: 100, fieldSize: 1024 * 1024 },
  }).any();
  const maxBody = maxTextBody(maxFileSize);
  let uploading = 0;

  const readMultipart = (req: ParsedRequest, res: Response, next: NextFunction): void => {
    const declared = Number(req.headers['content-length'] ?? 0);
    // Files plus room for the INPUT_DATA and other fields beside them.
    if (declared > maxUploadBytes + FIELD_ALLOWANCE) {
      req.bodyError = new AppError(ErrorCode.TooLarge, `The uploaded files are larger than the limit of ${maxUploadBytes} bytes in total`);
      next();
      return;
    }
    if (uploading >= maxConcurrentUploads) {
      req.bodyError = new AppError(ErrorCode.Unavailable, `Too many uploads in progress (at most ${maxConcurrentUploads} at once); try again shortly`);
      next();
      return;
    }
    uploading += 1;
    storage.begin(req);
    res.on('close', () => removeRequestUploads(req));
    upload(req, res, (err: unknown) => {
      uploading -= 1;
      if (err) req.bodyError = uploadError(err, maxFileSize);
      next();
    });
  };

  const readBody = (req: ParsedRequest, res: Response, next: NextFunction): void => {
    if (/^multipart\/form-data/i.test(req.headers['content-type'] ?? '')) {
      readMultipart(req, res, next);
      return;
    }
    readTextBody(req, maxBody, next);
  };

  return (req: ParsedRequest, res: Response, next: NextFunction): void => {
    req.body = {};
    // Most calls (GET with the token in a header) have no body: don't wait for one.
    if (!req.headers['transfer-encoding'] && (req.headers['content-length'] ?? '0') === '0') {
      next();
      return;
    }
    const early = extractToken(req);
    if (!early || !options.isKnownToken) {
      readBody(req, res, next);
      return;
    }
    // Until the token is known to exist nothing is read: the socket's own buffers (about
    // 64 KiB) are all a caller without a valid token can make us hold.
    options.isKnownToken(early, req).then(
      (known) => (known ? readBody(req, res, next) : next()),
      () => next(),
    );
  };
}

/** The largest body that is not multipart, for a given MAX_FILE_SIZE. */
export function maxTextBody(maxFileSize: number): number {
  return Math.max(maxFileSize, 2 * 1024 * 1024);
}

/**
 * Reads a body that is not multipart: kept as bytes (OCSP), as raw JSON, or as form fields.
 * Over `maxBody` it is drained and reported as too large when input is read.
 */
export function readTextBody(req: ParsedRequest, maxBody: number, done: () => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= maxBody) chunks.push(chunk);
  });
  req.on('error', () => done());
  req.on('end', () => {
    if (size > maxBody) {
      req.bodyError = new AppError(ErrorCode.TooLarge, `Request body is larger than the limit of ${maxBody} bytes`);
    } else if (/^application\/ocsp-request/i.test(req.headers['content-type'] ?? '')) {
      req.rawBody = Buffer.concat(chunks);
    } else {
      parseText(req, Buffer.concat(chunks).toString('utf8'));
    }
    done();
  });
}

/** Room for the form fields of a multipart body, on top of its files, in the Content-Length check. */
const FIELD_ALLOWANCE = 4 * 1024 * 1024;

function parseText(req: ParsedRequest, text: string): void {
  const trimmed = text.trim();
  if (!trimmed) return;
  if (trimmed.startsWith('{')) {
    req.rawInput = trimmed;
    return;
  }
  const fields: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(trimmed)) fields[key] = value;
  req.body = fields;
}

function uploadError(err: unknown, maxFileSize: number): AppError {
  if (err instanceof AppError) return err;
  const code = (err as { code?: string }).code;
  if (code === 'LIMIT_FILE_SIZE') {
    return new AppError(ErrorCode.TooLarge, `The uploaded file is larger than the limit of ${maxFileSize} bytes`);
  }
  return AppError.invalid(`The multipart body could not be read: ${(err as Error).message ?? 'malformed'}`);
}

/**
 * Tolerates doubled and trailing slashes, and takes a trailing `/AUTHTOKEN=<token>`
 * segment (pki clients) off the path before routing.
 */
export function normalizePathMiddleware(req: ParsedRequest, _res: Response, next: NextFunction): void {
  const { path: requested, search: query } = splitUrl(req.url);
  let path = requested;
  const tokenSegment = /\/AUTHTOKEN=([^/]*)\/*$/i.exec(path);
  if (tokenSegment) {
    req.pathToken = decodeURIComponent(tokenSegment[1]);
    path = path.slice(0, tokenSegment.index);
  }
  path = path.replace(/\/{2,}/g, '/');
  if (path.length > 1) path = path.replace(/\/+$/, '');
  req.url = (path || '/') + query;
  next();
}

/** No ETag (it would fingerprint the password in the body) and no caching anywhere. */
export function noStoreMiddleware(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Pragma', 'no-cache');
  next();
}
