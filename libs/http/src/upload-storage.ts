// Uploaded files keep the shape handlers already know (Express.Multer.File), though the reader is our own.
/// <reference types="multer" />
import { createWriteStream, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Request } from 'express';

type UploadedFile = Express.Multer.File;

interface UploadState {
  dir: string;
  count: number;
}

const STATE = Symbol('upload-state');

/**
 * Multipart files go to a folder of the request's own under `root` (mode 0700, files 0600),
 * never to memory. The reader (multipart-body.ts) bounds their sizes.
 */
export class TempFileStorage {
  constructor(private readonly root: string) {
    mkdirSync(root, { recursive: true, mode: 0o700 });
  }

  /** Writes one file of the request to its folder (made on the first file; removeRequestUploads() deletes it). */
  async save(req: Request, stream: Readable): Promise<Pick<UploadedFile, 'path' | 'size' | 'destination' | 'filename'>> {
    const holder = req as unknown as Record<symbol, UploadState>;
    const state = (holder[STATE] ??= { dir: mkdtempSync(join(this.root, 'req-')), count: 0 });
    const filename = String((state.count += 1));
    const path = join(state.dir, filename);
    const out = createWriteStream(path, { mode: 0o600 });
    let size = 0;
    stream.on('data', (chunk: Buffer) => (size += chunk.length));
    await pipeline(stream, out);
    return { path, size, destination: state.dir, filename };
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
