import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, opendir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';

export const KEYSTORE_EXTENSIONS = ['.jks', '.p12', '.pfx'];
/** Bounds on the walk of the shared path, so a huge share cannot stall a request. */
export const MAX_SCAN_DEPTH = 4;
export const MAX_SCAN_FILES = 1000;
/** Entries read from one folder; a folder with more is read only this far. */
export const MAX_DIR_ENTRIES = 10_000;
/**
 * The folder under UNMANAGED_CERT_PATH that holds one folder per organisation, named by its
 * id (`orgs/7/`). The provider (first) organisation keeps the top level, as before, minus this.
 */
export const ORGANISATION_FOLDERS = 'orgs';

export interface KeystoreFile {
  /** Relative to the organisation's folder, with forward slashes: the name clients see. */
  path: string;
  /** Where it is on disk. */
  fullPath: string;
  sha256: string;
}

/** The folder an organisation lists and imports from. */
export function organisationFolder(root: string, orgId: number, isProvider: boolean): string {
  return isProvider ? root : join(root, ORGANISATION_FOLDERS, String(orgId));
}

/**
 * JKS and PKCS#12 files under `folder` (sub-folders up to MAX_SCAN_DEPTH), sorted by path,
 * each hashed as a stream: a listing holds names and hashes, never the files. Symbolic
 * links are not followed, so the walk stays inside the folder; `skip` names a top-level
 * folder left out (the per-organisation folders, for the provider).
 */
export async function findKeystoreFiles(folder: string, maxFileSize: number, skip?: string): Promise<KeystoreFile[]> {
  const found: string[] = [];
  async function walk(dir: string, depth: number): Promise<void> {
    const entries: { name: string; directory: boolean; file: boolean }[] = [];
    try {
      const handle = await opendir(dir);
      for await (const entry of handle) {
        entries.push({ name: entry.name, directory: entry.isDirectory(), file: entry.isFile() });
        if (entries.length >= MAX_DIR_ENTRIES) break;
      }
    } catch {
      return;
    }
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (found.length >= MAX_SCAN_FILES) return;
      if (depth === 0 && entry.name === skip) continue;
      const full = join(dir, entry.name);
      if (entry.directory && depth < MAX_SCAN_DEPTH) await walk(full, depth + 1);
      else if (entry.file && KEYSTORE_EXTENSIONS.some((ext) => entry.name.toLowerCase().endsWith(ext))) found.push(full);
    }
  }
  await walk(folder, 0);
  const files: KeystoreFile[] = [];
  for (const full of found) {
    const sha256 = await hashFile(full, maxFileSize);
    if (sha256) files.push({ path: relative(folder, full).split(sep).join('/'), fullPath: full, sha256 });
  }
  return files.sort((a, b) => a.path.localeCompare(b.path));
}

/** The file's SHA-256, read as a stream; undefined when it is not a regular file of at most maxBytes. */
async function hashFile(full: string, maxBytes: number): Promise<string | undefined> {
  try {
    const info = await lstat(full);
    if (!info.isFile() || info.size > maxBytes) return undefined;
    const hash = createHash('sha256');
    await pipeline(createReadStream(full, { end: maxBytes }), hash);
    return hash.digest('hex');
  } catch {
    return undefined;
  }
}

/** One listed file's content, for its import: undefined when it changed since it was listed or grew too large. */
export async function readListedFile(file: KeystoreFile, maxBytes: number): Promise<Buffer | undefined> {
  try {
    const info = await lstat(file.fullPath);
    if (!info.isFile() || info.size > maxBytes) return undefined;
    const content = await readFile(file.fullPath);
    return createHash('sha256').update(content).digest('hex') === file.sha256 ? content : undefined;
  } catch {
    return undefined;
  }
}
