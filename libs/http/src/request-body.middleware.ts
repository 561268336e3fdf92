import { NextFunction, Response } from 'express';
import { AppError, ErrorCode } from './app-error';
import { hasNoBody } from './lean-route';
import { readMultipart } from './multipart-body';
import { ParsedRequest } from './parsed-request';
import { noteReaderFault } from './reader-fault';
import { splitUrl } from './split-url';
import { admissionBeforeBody, BodyGate, leaveUnread, readTextBody } from './text-body';
import { removeRequestUploads, TempFileStorage } from './upload-storage';

export type { ParsedRequest } from './parsed-request';


/** How much a request body may cost, and how a token is checked before more than a little of it is read. */
export interface RequestBodyOptions {
  /** Largest file of a multipart body (MAX_FILE_SIZE). */
  maxFileSize: number;
  /** This process's folder for multipart files in progress (under DATA_DIR); each request gets its own sub-folder. */
  uploadDir: string;
  /** All files and text fields of one multipart body together (MAX_UPLOAD_TOTAL). */
  maxUploadBytes: number;
  /** Multipart bodies being received at once by admitted callers (MAX_CONCURRENT_UPLOADS); more answer Failed unread. */
  maxConcurrentUploads: number;
  /**
   * Whether the token's user would be admitted (known, not locked or expired, from an
   * allowed host). Asked before any body is read when the token is in a header, the query or
   * the path, else when an AUTHTOKEN form field turns up in the body's first
   * PREAUTH_BODY_LIMIT bytes; without a yes no more than that is read. Gets the request, so
   * that the look-up can serve the guard too (see Authenticator). Absent: every caller is.
   */
  admissible?: (token: string, req: ParsedRequest) => Promise<boolean>;
}

/**
 * Reads every body the real clients send: urlencoded whatever the Content-Type says
 * (they label it text/json, application/json or nothing), a raw JSON document, or
 * multipart with files (streamed to temporary files, removed when the request ends).
 * Before the caller is known to be admissible at most PREAUTH_BODY_LIMIT bytes are read;
 * a body left unread is answered and its connection closed lingering (closeAfterAnswer).
 * Never throws: a bad body is reported when input is read.
 */
export function requestBodyMiddleware(options: RequestBodyOptions) {
  const { maxFileSize, maxUploadBytes, maxConcurrentUploads } = options;
  const storage = new TempFileStorage(options.uploadDir);
  const maxBody = maxTextBody(maxFileSize);
  const gate = bodyGate(options.admissible, maxUploadBytes + PART_ALLOWANCE);
  let uploading = 0;
  const acquire = (): AppError | undefined => {
    if (uploading >= maxConcurrentUploads) {
      return new AppError(ErrorCode.Unavailable, `Too many uploads in progress (at most ${maxConcurrentUploads} at once); try again shortly`);
    }
    uploading += 1;
    return undefined;
  };
  const release = () => (uploading -= 1);

  const readMultipartBody = (req: ParsedRequest, res: Response, next: NextFunction, admitted: boolean): void => {
    const declared = Number(req.headers['content-length'] ?? 0);
    // Files and fields, plus room for the part headers and boundaries.
    if (declared > maxUploadBytes + PART_ALLOWANCE) {
      leaveUnread(req, res, gate, new AppError(ErrorCode.TooLarge, `The uploaded files and fields are larger than the limit of ${maxUploadBytes} bytes in total`));
      next();
      return;
    }
    const busy = admitted ? acquire() : undefined;
    if (busy) {
      leaveUnread(req, res, gate, busy);
      next();
      return;
    }
    res.on('close', () => removeRequestUploads(req));
    readMultipart(req, res, { storage, maxFileSize, maxTotal: maxUploadBytes, gate, admitted, acquire, release }, () => next());
  };

  return (req: ParsedRequest, res: Response, next: NextFunction): void => {
    req.body = {};
    // Most calls (GET with the token in a header) have no body: don't wait for one.
    if (hasNoBody(req)) {
      next();
      return;
    }
    // The readers never throw; should one anyway, the request is answered Failed, not lost.
    let passed = false;
    const proceed = () => {
      if (passed) return;
      passed = true;
      next();
    };
    Promise.resolve()
      .then(() => (options.admissible ? admissionBeforeBody(req, gate) : true))
      .then((admitted) => {
        if (admitted === false) {
          leaveUnread(req, res, gate);
          proceed();
        } else if (/^multipart\/form-data/i.test(req.headers['content-type'] ?? '')) {
          readMultipartBody(req, res, proceed, admitted === true);
        } else {
          readTextBody(req, maxBody, proceed, admitted ? undefined : { res, gate });
        }
      })
      .catch((error: unknown) => {
        noteReaderFault(req, error);
        if (passed) return;
        leaveUnread(req, res, gate, AppError.invalid('The request body could not be read'));
        proceed();
      });
  };
}

export function bodyGate(admissible: BodyGate['admissible'] | undefined, lingerBytes: number): BodyGate {
  return { admissible: admissible ?? (async () => true), lingerBytes };
}

/** The largest body that is not multipart, for a given MAX_FILE_SIZE. */
export function maxTextBody(maxFileSize: number): number {
  return Math.max(maxFileSize, 2 * 1024 * 1024);
}

/** Room for the part headers and boundaries of a multipart body, on top of its files and fields. */
const PART_ALLOWANCE = 64 * 1024;

/**
 * Tolerates doubled and trailing slashes, and takes a trailing `/AUTHTOKEN=<token>`
 * segment (pki clients) off the path before routing.
 */
export function normalizePathMiddleware(req: ParsedRequest, _res: Response, next: NextFunction): void {
  const { path: requested, search: query } = splitUrl(req.url);
  const { path, tokenSegment } = routedPath(requested);
  if (tokenSegment !== undefined) req.pathToken = decodeURIComponent(tokenSegment);
  req.url = path + query;
  next();
}

/** The path the router matches (see normalizePathMiddleware), and the token segment taken off it, still encoded. */
export function routedPath(requested: string): { path: string; tokenSegment?: string } {
  let path = requested;
  const token = /\/AUTHTOKEN=([^/]*)\/*$/i.exec(path);
  if (token) path = path.slice(0, token.index);
  path = path.replace(/\/{2,}/g, '/');
  if (path.length > 1) path = path.replace(/\/+$/, '');
  return { path: path || '/', tokenSegment: token?.[1] };
}

/** No ETag (it would fingerprint the password in the body), no caching anywhere, and no type sniffing. */
export function noStoreMiddleware(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Pragma', 'no-cache');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  next();
}
