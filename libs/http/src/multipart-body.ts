import busboy from 'busboy';
import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { AppError, ErrorCode } from './app-error';
import { noteReaderFault } from './reader-fault';
import type { ParsedRequest } from './parsed-request';
import { authFailed, BodyGate, leaveUnread, PREAUTH_BODY_LIMIT } from './text-body';
import { extractToken } from './token';
import type { TempFileStorage } from './upload-storage';

export interface MultipartOptions {
  storage: TempFileStorage;
  /** Largest file (MAX_FILE_SIZE). */
  maxFileSize: number;
  /** Files and text fields together (MAX_UPLOAD_TOTAL). */
  maxTotal: number;
  gate: BodyGate;
  /** Whether a token before the body was admissible; if not, only a form field can admit the caller. */
  admitted: boolean;
  /** Takes an upload slot for a caller admitted by a form field: the refusal when none is free. */
  acquire(): AppError | undefined;
  /** Gives back the slot of an admitted caller (taken before reading, or by acquire). */
  release(): void;
}

const FIELD_SIZE = 1024 * 1024;

/**
 * Reads a multipart body: text fields into req.body, files to temporary files, fields and
 * files together at most `maxTotal` bytes. Until the caller is admitted (a token before the
 * body, or an AUTHTOKEN field checked as soon as it is complete, reading paused meanwhile)
 * at most PREAUTH_BODY_LIMIT bytes are read; after that, or after any error, the rest is
 * left unread and the connection closes after the answer. Never throws, not even from an
 * event handler (each one is `guarded`: a throw there would be outside every exception
 * filter and end the process): a bad body is reported when input is read.
 */
export function readMultipart(req: ParsedRequest, res: ServerResponse, o: MultipartOptions, done: () => void): void {
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: req.headers, defParamCharset: 'utf8', limits: { fileSize: o.maxFileSize + 1, files: 10, fields: 100, fieldSize: FIELD_SIZE + 1 } });
  } catch (error) {
    if (o.admitted) o.release();
    leaveUnread(req, res, o.gate, unreadable(error));
    done();
    return;
  }
  const files: Express.Multer.File[] = [];
  const writing = new Set<Readable>();
  const fields: Record<string, unknown> = Object.create(null);
  req.body = fields;
  req.files = files;
  let admitted = o.admitted;
  let slot = admitted;
  let raw = 0;
  let total = 0;
  let checking = false;
  let parserFull = false;
  let parsed = false;
  let finished = false;

  /** Every event and callback of the reader runs through this: a throw ends the request with Failed, never the process. */
  const guarded =
    <A extends unknown[]>(handler: (...args: A) => void) =>
    (...args: A): void => {
      try {
        handler(...args);
      } catch (error) {
        noteReaderFault(req, error);
        finish(error instanceof AppError ? error : unreadable(error));
      }
    };
  const finish = (error?: AppError) => {
    if (finished) return;
    finished = true;
    req.off('data', onData);
    if (slot) o.release();
    if (error) {
      parser.removeAllListeners();
      parser.on('error', () => undefined);
      for (const stream of writing) stream.destroy();
      leaveUnread(req, res, o.gate, error);
    }
    done();
  };
  const resume = () => {
    if (!finished && !checking && !parserFull) req.resume();
  };
  const completeIfDone = () => {
    if (parsed && writing.size === 0 && !checking) finish();
  };
  const count = (bytes: number) => {
    total += bytes;
    if (admitted && total > o.maxTotal) {
      finish(new AppError(ErrorCode.TooLarge, `The uploaded files and fields are larger than the limit of ${o.maxTotal} bytes in total`));
    }
  };
  const admit = (token: string) => {
    checking = true;
    req.pause();
    Promise.resolve()
      .then(() => o.gate.admissible(token, req))
      .catch(() => false)
      .then(
        guarded((ok: boolean) => {
          checking = false;
          if (finished) return;
          if (!ok) return finish(authFailed());
          admitted = true;
          const busy = o.acquire();
          if (busy) return finish(busy);
          slot = true;
          resume();
          completeIfDone();
        }),
      );
  };

  const onData = guarded((chunk: Buffer) => {
    raw += chunk.length;
    if (!admitted && raw > PREAUTH_BODY_LIMIT) return finish(authFailed());
    if (!parser.write(chunk)) {
      parserFull = true;
      req.pause();
    }
  });
  parser.on(
    'drain',
    guarded(() => {
      parserFull = false;
      resume();
    }),
  );
  parser.on(
    'field',
    guarded((name: string | undefined, value: string | undefined, info: busboy.FieldInfo) => {
      if (finished) return;
      if (name == null) return finish(unnamed());
      if (info.nameTruncated) return finish(AppError.invalid('The multipart body could not be read: a field name is longer than 100 bytes'));
      if (info.valueTruncated) return finish(AppError.invalid(`The multipart field ${partName(name)} is longer than ${FIELD_SIZE} bytes`));
      // busboy hands undefined for a text part in a charset it cannot decode (UTF-16BE, an unknown name).
      if (typeof value !== 'string') return finish(AppError.invalid(`The multipart field ${partName(name)} could not be read: its charset is not one this server decodes (send UTF-8)`));
      count(Buffer.byteLength(value));
      append(fields, name, value);
      if (!admitted && !checking && /^(app_)?authtoken$/i.test(name)) {
        const token = extractToken(req);
        if (token) admit(token);
      }
    }),
  );
  parser.on(
    'file',
    guarded((name: string | undefined, stream: Readable, info: busboy.FileInfo) => {
      // A destroyed stream may still report an error: never without a listener.
      stream.on('error', () => undefined);
      if (finished || name == null || !info.filename) {
        stream.resume();
        if (name == null) finish(unnamed());
        return;
      }
      writing.add(stream);
      stream.on('data', guarded((chunk: Buffer) => count(chunk.length)));
      stream.on('limit', guarded(() => finish(new AppError(ErrorCode.TooLarge, `The uploaded file is larger than the limit of ${o.maxFileSize} bytes`))));
      // Called at once (the 'data' listener above lets the stream flow); a synchronous throw becomes a rejection.
      storeSafely(o.storage, req, stream).then(
        guarded((stored: Awaited<ReturnType<TempFileStorage['save']>>) => {
          writing.delete(stream);
          files.push({ fieldname: name, originalname: info.filename, encoding: info.encoding, mimetype: info.mimeType, ...stored } as Express.Multer.File);
          completeIfDone();
        }),
        guarded((error: unknown) => {
          writing.delete(stream);
          stream.resume();
          if (finished) return;
          // The part itself broke off (busboy's "Unexpected end of form"): the client's body, not our storage.
          if (stream.errored) return finish(unreadable(stream.errored));
          noteReaderFault(req, error);
          finish(error instanceof AppError ? error : unstored());
        }),
      );
    }),
  );
  parser.on('error', (error: unknown) => finish(unreadable(error)));
  parser.on('partsLimit', guarded(() => finish(AppError.invalid('The multipart body could not be read: too many parts'))));
  parser.on('filesLimit', guarded(() => finish(AppError.invalid('The multipart body could not be read: more than 10 files'))));
  parser.on('fieldsLimit', guarded(() => finish(AppError.invalid('The multipart body could not be read: more than 100 fields'))));
  parser.on(
    'close',
    guarded(() => {
      parsed = true;
      completeIfDone();
    }),
  );
  req.on('data', onData);
  req.on(
    'end',
    guarded(() => !finished && parser.end()),
  );
  req.on('error', () => finish(AppError.invalid('The multipart body could not be read: the request was aborted')));
}

function append(fields: Record<string, unknown>, name: string, value: string): void {
  const existing = fields[name];
  if (existing === undefined) fields[name] = value;
  else if (Array.isArray(existing)) existing.push(value);
  else fields[name] = [existing, value];
}

function unnamed(): AppError {
  return AppError.invalid('The multipart body could not be read: a part has no name');
}

function storeSafely(storage: TempFileStorage, req: ParsedRequest, stream: Readable): ReturnType<TempFileStorage['save']> {
  try {
    return storage.save(req, stream);
  } catch (error) {
    return Promise.reject(error);
  }
}

/** A part's name as shown in a message: quoted, control characters escaped. */
function partName(name: string): string {
  return JSON.stringify(name);
}

/** busboy's own errors say what is malformed ("Malformed part header"); anything else is ours and not for the client. */
function unreadable(error: unknown): AppError {
  const parserError = error instanceof Error && !(error instanceof TypeError || error instanceof RangeError || error instanceof ReferenceError);
  return AppError.invalid(`The multipart body could not be read: ${parserError ? error.message : 'malformed'}`);
}

function unstored(): AppError {
  return new AppError(ErrorCode.Unavailable, 'The uploaded file could not be stored on the server; try again shortly');
}
