import { createHash } from 'node:crypto';
import { Dirent } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';

export const KEYSTORE_EXTENSIONS = ['.jks', '.p12', '.pfx'];
/** Bounds on the walk of the shared path, so a huge share cannot stall a request. */
export const MAX_SCAN_DEPTH = 4;
export const MAX_SCAN_FILES = 1000;

export interface KeystoreFile {
  /** Relative to the shared path, with forward slashes: the name clients see. */
  path: string;
  content: Buffer;
  sha256: string;
}

/**
 * JKS and PKCS#12 files under `root` (sub-folders up to MAX_SCAN_DEPTH), sorted by path.
 * Symbolic links are not followed, so the walk stays inside the share.
 */
export async function findKeystoreFiles(root: string, maxFileSize: number): Promise<KeystoreFile[]> {
  const found: string[] = [];
  async function walk(dir: string, depth: number): Promise<void> {
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (found.length >= MAX_SCAN_FILES) return;
      const full = join(dir, entry.name);
      if (entry.isDirectory() && depth < MAX_SCAN_DEPTH) await walk(full, depth + 1);
      else if (entry.isFile() && KEYSTORE_EXTENSIONS.some((ext) => entry.name.toLowerCase().endsWith(ext))) found.push(full);
    }
  }
  await walk(root, 0);
  const files: KeystoreFile[] = [];
  for (const full of found) {
    if ((await stat(full)).size > maxFileSize) continue;
    const content = await readFile(full);
    files.push({ path: relative(root, full).split(sep).join('/'), content, sha256: createHash('sha256').update(content).digest('hex') });
  }
  return files.sort((a, b) => a.path.localeCompare(b.path));
}
