import type { ServerResponse } from 'node:http';
import { AppError, AUTH_FAILED_MESSAGE, ErrorCode } from './app-error';
import { closeAfterAnswer } from './lingering-close';
import { noteReaderFault } from './reader-fault';
import type { ParsedRequest } from './parsed-request';
import { extractToken } from './token';

/** The most of a body read before its caller is known to be one that would be admitted. */
export const PREAUTH_BODY_LIMIT = 64 * 1024;

/** How a body reader learns whether the caller may have more than PREAUTH_BODY_LIMIT bytes read. */
export interface BodyGate {
  /** Whether the token's user would be admitted (known, not locked or expired, from an allowed host). */
  admissible(token: string, req: ParsedRequest): Promise<boolean>;
  /** Most bytes dropped after the answer to a request whose body was left unread (closeAfterAnswer). */
  lingerBytes: number;
}

/**
 * What to read of a body before it, from the token in a header, the query or the path:
 * true (all of it), false (none: the caller would be refused) or undefined (no token
 * there: the first PREAUTH_BODY_LIMIT bytes, where a form field may carry one).
 */
export async function admissionBeforeBody(req: ParsedRequest, gate: BodyGate): Promise<boolean | undefined> {
  const token = extractToken(req);
  if (!token) return undefined;
  // A gate that throws instead of answering refuses, like one that says no.
  return Promise.resolve()
    .then(() => gate.admissible(token, req))
    .catch(() => false);
}

/**
 * Leaves the body unread: the guard refuses the caller, and if it turns out admitted after
 * all (unlocked meanwhile), reading its input fails the same way.
 */
export function leaveUnread(req: ParsedRequest, res: ServerResponse, gate: BodyGate, error = authFailed()): void {
  req.bodyError = error;
  closeAfterAnswer(req, res, gate.lingerBytes);
}

/**
 * Reads a body that is not multipart: kept as bytes (OCSP), as raw JSON, or as form fields.
 * Over `maxBody` it is drained and reported as too large when input is read. With `gate`
 * (no admitted token before the body) at most PREAUTH_BODY_LIMIT bytes are read unless an
 * AUTHTOKEN form field among them belongs to a user who would be admitted.
 */
export function readTextBody(req: ParsedRequest, maxBody: number, done: () => void, gated?: { res: ServerResponse; gate: BodyGate }): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let pending = gated;
  let stopped = false;
  // A throw in an event handler is outside every exception filter and would end the process:
  // it ends this request instead, reported when input is read.
  const fail = (error: unknown) => {
    noteReaderFault(req, error);
    if (stopped) return;
    stopped = true;
    chunks.length = 0;
    req.off('data', onData);
    req.bodyError = error instanceof AppError ? error : AppError.invalid('The request body could not be read');
    req.resume();
    done();
  };
  const guarded =
    <A extends unknown[]>(handler: (...args: A) => void) =>
    (...args: A): void => {
      try {
        handler(...args);
      } catch (error) {
        fail(error);
      }
    };
  const onData = guarded((chunk: Buffer) => {
    size += chunk.length;
    if (size <= maxBody) chunks.push(chunk);
    if (!pending || size <= PREAUTH_BODY_LIMIT) return;
    const { res, gate } = pending;
    pending = undefined;
    req.pause();
    req.body = formTokenFields(Buffer.concat(chunks).subarray(0, PREAUTH_BODY_LIMIT));
    const token = extractToken(req);
    Promise.resolve()
      .then(() => (token ? gate.admissible(token, req) : false))
      .catch(() => false)
      .then(
        guarded((admitted: boolean) => {
          if (admitted) {
            req.resume();
            return;
          }
          stopped = true;
          chunks.length = 0;
          req.off('data', onData);
          leaveUnread(req, res, gate);
          done();
        }),
      );
  });
  req.on('data', onData);
  req.on('error', () => {
    if (stopped) return;
    stopped = true;
    done();
  });
  req.on('end', guarded(() => {
    if (stopped) return;
    if (size > maxBody) {
      req.bodyError = new AppError(ErrorCode.TooLarge, `Request body is larger than the limit of ${maxBody} bytes`);
    } else if (/^application\/ocsp-request/i.test(req.headers['content-type'] ?? '')) {
      req.rawBody = Buffer.concat(chunks);
    } else {
      parseText(req, Buffer.concat(chunks).toString('utf8'));
    }
    stopped = true;
    done();
  }));
}

/** The token fields among the complete form fields of a body's first bytes (none in raw JSON). */
function formTokenFields(prefix: Buffer): Record<string, string> {
  const text = prefix.toString('latin1');
  const complete = text.slice(0, text.lastIndexOf('&'));
  const fields: Record<string, string> = {};
  if (complete.trimStart().startsWith('{')) return fields;
  for (const [key, value] of new URLSearchParams(complete)) {
    if (/^(app_)?authtoken$/i.test(key) && !(key in fields)) fields[key] = value;
  }
  return fields;
}

function parseText(req: ParsedRequest, text: string): void {
  const trimmed = text.trim();
  req.body = {};
  if (!trimmed) return;
  if (trimmed.startsWith('{')) {
    req.rawInput = trimmed;
    return;
  }
  const fields: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(trimmed)) fields[key] = value;
  req.body = fields;
}

export function authFailed(): AppError {
  return new AppError(ErrorCode.AuthFailed, AUTH_FAILED_MESSAGE);
}
