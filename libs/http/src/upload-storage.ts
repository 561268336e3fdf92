import { createWriteStream, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Request } from 'express';
import type { StorageEngine } from 'multer';
import { AppError, ErrorCode } from './app-error';

type UploadedFile = Express.Multer.File;

interface UploadState {
  dir: string;
  total: number;
  count: number;
}

const STATE = Symbol('upload-state');

/**
 * Multipart files go to a folder of the request's own under `root` (mode 0700, files 0600),
 * never to memory, and the request's files together may not exceed `maxTotal` bytes.
 */
export class TempFileStorage implements StorageEngine {
  constructor(
    private readonly root: string,
    private readonly maxTotal: number,
  ) {
    mkdirSync(root, { recursive: true, mode: 0o700 });
  }

  /** A request's folder; removeRequestUploads() deletes it. */
  begin(req: Request): void {
    (req as unknown as Record<symbol, UploadState>)[STATE] = { dir: mkdtempSync(join(this.root, 'req-')), total: 0, count: 0 };
  }

  _handleFile(req: Request, file: UploadedFile, callback: (error?: unknown, info?: Partial<UploadedFile>) => void): void {
    const state = (req as unknown as Record<symbol, UploadState>)[STATE];
    const path = join(state.dir, String((state.count += 1)));
    const out = createWriteStream(path, { mode: 0o600 });
    let size = 0;
    let failed = false;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      file.stream.unpipe(out);
      out.destroy();
      // Keep reading so the parser can finish; the bytes are dropped.
      file.stream.resume();
      callback(error);
    };
    file.stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      state.total += chunk.length;
      if (state.total > this.maxTotal) {
        fail(new AppError(ErrorCode.TooLarge, `The uploaded files are larger than the limit of ${this.maxTotal} bytes in total`));
      }
    });
    out.on('error', fail);
    out.on('finish', () => {
      if (!failed) callback(null, { path, size, destination: state.dir, filename: String(state.count) });
    });
    file.stream.pipe(out);
  }

  _removeFile(_req: Request, file: UploadedFile, callback: (error: Error | null) => void): void {
    rmSync(file.path, { force: true });
    callback(null);
  }
}

/** Deletes the request's upload folder, whatever happened to the request. */
export function removeRequestUploads(req: Request): void {
  const state = (req as unknown as Record<symbol, UploadState>)[STATE];
  if (state) rmSync(state.dir, { recursive: true, force: true });
}

/** The file's content, read from its temporary file once the handler asks for it (after the token check). */
export function loadUpload(file: UploadedFile): UploadedFile {
  if (!file.buffer && file.path) file.buffer = readFileSync(file.path);
  return file;
}

/**
 * This process's folder under `root`, made fresh at start. Other instances may share
 * DATA_DIR, so only folders older than a day (left by a crash) are swept.
 */
export function processUploadRoot(root: string, now = Date.now()): string {
  mkdirSync(root, { recursive: true, mode: 0o700 });
  for (const name of readdirSync(root)) {
    const path = join(root, name);
    try {
      if (now - statSync(path).mtimeMs > STALE_MS) rmSync(path, { recursive: true, force: true });
    } catch {
      // Removed meanwhile by its owner.
    }
  }
  return mkdtempSync(join(root, 'p-'));
}

const STALE_MS = 24 * 60 * 60 * 1000;
