import { basename, extname } from 'node:path';
import { EntityManager } from 'typeorm';
import { Keyring } from '@app/crypto';
import { AppError, ParsedRequest, uploadedFile } from '@app/http';

export const FILE_CONTEXT = 'stored_files.content';

const CONTENT_TYPES: Record<string, string> = {
  '.txt': 'text/plain',
  '.pem': 'application/x-pem-file',
  '.crt': 'application/x-x509-ca-cert',
  '.cer': 'application/pkix-cert',
  '.der': 'application/x-x509-ca-cert',
  '.key': 'application/x-pem-file',
  '.pub': 'text/plain',
  '.p12': 'application/x-pkcs12',
  '.pfx': 'application/x-pkcs12',
  '.jks': 'application/octet-stream',
  '.json': 'application/json',
  '.xml': 'application/xml',
  '.pdf': 'application/pdf',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.zip': 'application/zip',
  '.lic': 'application/octet-stream',
};

export interface FileTarget {
  resourceId: number;
  accountId: number | null;
  customFieldId?: number | null;
}

/** The name a file is stored and served under: its base name, without control characters. */
export function safeFileName(name: string | undefined): string {
  const cleaned = basename((name ?? '').replace(/\\/g, '/')).replace(/[\u0000-\u001f\u007f"]/g, '').trim();
  return (cleaned || 'file').slice(0, 255);
}

/** The sender's content type when it says something, else one guessed from the extension. */
export function contentTypeOf(fileName: string, sent?: string): string {
  if (sent && sent !== 'application/octet-stream' && /^[\w.+-]+\/[\w.+-]+$/.test(sent)) return sent;
  return CONTENT_TYPES[extname(fileName).toLowerCase()] ?? 'application/octet-stream';
}

/** Seals the upload and stores it in the caller's transaction. */
export async function storeFile(m: EntityManager, keyring: Keyring, target: FileTarget, file: Express.Multer.File): Promise<void> {
  const fileName = safeFileName(file.originalname);
  await m.query(
    `INSERT INTO stored_files (resource_id, account_id, custom_field_id, file_name, content_type, size, content)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [target.resourceId, target.accountId, target.customFieldId ?? null, fileName, contentTypeOf(fileName, file.mimetype), file.size, keyring.seal(file.buffer, FILE_CONTEXT)],
  );
}

/** The part carrying a file custom field's content, named by its CUSTOMVALUE. */
export function filePartFor(req: ParsedRequest | undefined, label: string, partName: string): Express.Multer.File {
  const file = req && partName ? uploadedFile(req, partName) : undefined;
  if (!file) throw AppError.invalid(`Custom field ${label} is a file field: send the file as the multipart part named "${partName}" (its CUSTOMVALUE)`);
  return file;
}
