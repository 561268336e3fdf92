import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { Actor, AuditOperation, AuditWriter } from '@app/audit';
import { APP_CONFIG, AppConfig } from '@app/config';
import { Keyring } from '@app/crypto';
import { AppError, ErrorCode, InputDataSyntaxError, parseLenientJson } from '@app/http';
// The inventory's own sealing contexts, so the certificate service opens what we import.
import { CERT_KEY_CONTEXT, CERT_PASSWORD_CONTEXT, isProviderOrganisation } from '../cert-service';
import { saveCertificate } from '../cert-store';
import { CertificateError, isJks, KeyStoreContents, orderChain, readKeyStoreOffLoop } from '../certs';
import { findKeystoreFiles, KeystoreFile, ORGANISATION_FOLDERS, organisationFolder, readListedFile } from './keystore-files';

export const PASSWORD_PLACEHOLDER = 'Enter Password';
/** What a list sent back unfilled may say: ours, and KMP's documented placeholder. */
const UNFILLED = new Set([PASSWORD_PLACEHOLDER, 'ENTER_THE_PASSWORD']);

export interface ListedFile extends KeystoreFile {
  /** `<file>::<n>`, the name the caller fills a password in for. */
  key: string;
}

export interface ImportOutcome {
  imported: string[];
  failed: Record<string, string>;
}

/**
 * Ops 44, 45: keystores in the organisation's folder of the shared path (UNMANAGED_CERT_PATH)
 * that are not in its inventory yet; see organisationFolder for the layout.
 */
@Injectable()
export class UnmanagedCertificatesService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly keyring: Keyring,
    private readonly audit: AuditWriter,
  ) {}

  async list(actor: Actor, type: 'sharedpath' | 'loadbalancer' = 'sharedpath'): Promise<Record<string, string>> {
    if (type === 'loadbalancer') {
      throw AppError.invalid('No load balancer is configured; only type=sharedpath (the folder set by UNMANAGED_CERT_PATH) can be scanned');
    }
    const files = await this.unmanaged(actor);
    return Object.fromEntries(files.map((f) => [f.key, PASSWORD_PLACEHOLDER]));
  }

  /** `upload` is the filled-in list: a JSON object of `<file>::<n>` to password. Each file succeeds or fails on its own. */
  async import(actor: Actor, upload: Buffer | undefined): Promise<ImportOutcome> {
    const passwords = parsePasswords(upload);
    const byPath = new Map((await this.unmanaged(actor)).map((f) => [f.path, f]));
    const outcome: ImportOutcome = { imported: [], failed: {} };
    for (const [key, password] of Object.entries(passwords)) {
      const separator = key.lastIndexOf('::');
      const file = byPath.get(separator === -1 ? key : key.slice(0, separator));
      if (!file) {
        outcome.failed[key] = 'Not an unmanaged keystore in the shared path (already imported, moved or misspelt)';
        continue;
      }
      if (typeof password !== 'string' || password === '' || UNFILLED.has(password)) {
        outcome.failed[key] = 'No password given';
        continue;
      }
      const content = await readListedFile(file, this.config.maxFileSize);
      if (!content) {
        outcome.failed[key] = 'The file changed since it was listed; list again';
        continue;
      }
      let contents: KeyStoreContents;
      try {
        contents = await readKeyStoreOffLoop(content, password);
      } catch (error) {
        if (!(error instanceof CertificateError)) throw error;
        outcome.failed[key] = error.code === 'WRONG_PASSWORD' ? 'Wrong password' : error.message;
        continue;
      }
      await this.dataSource.transaction((m) => this.store(m, actor, file, isJks(content) ? 'JKS' : 'PKCS12', contents, password));
      outcome.imported.push(file.path);
    }
    return outcome;
  }

  private sharedPath(): string {
    const root = this.config.unmanagedCertPath;
    if (!root) throw new AppError(ErrorCode.Unavailable, 'No shared path is configured for unmanaged certificates (set UNMANAGED_CERT_PATH)');
    return root;
  }

  /**
   * The organisation's keystores whose content was never imported, or whose imported
   * certificates have since left the inventory.
   */
  private async unmanaged(actor: Actor): Promise<ListedFile[]> {
    const orgId = actor.orgId;
    const provider = await isProviderOrganisation(this.dataSource.manager, orgId);
    const folder = organisationFolder(this.sharedPath(), orgId, provider);
    const files = await findKeystoreFiles(folder, this.config.maxFileSize, provider ? ORGANISATION_FOLDERS : undefined);
    const managed: { file_sha256: string }[] = files.length
      ? await this.dataSource.query(
          `SELECT i.file_sha256 FROM unmanaged_cert_imports i
           WHERE i.org_id = $1 AND i.file_sha256 = ANY($2)
             AND NOT EXISTS (SELECT 1 FROM unnest(i.fingerprints) f
                             WHERE NOT EXISTS (SELECT 1 FROM certificates c WHERE c.org_id = $1 AND c.fingerprint = f))`,
          [orgId, files.map((f) => f.sha256)],
        )
      : [];
    const known = new Set(managed.map((row) => row.file_sha256));
    return files.filter((f) => !known.has(f.sha256)).map((f, i) => ({ ...f, key: `${f.path}::${i + 1}` }));
  }

  private async store(m: EntityManager, actor: Actor, file: KeystoreFile, storeType: string, contents: KeyStoreContents, password: string): Promise<void> {
    const base = { orgId: actor.orgId, storeType, source: 'imported' as const, createdByName: actor.username };
    const fingerprints: string[] = [];
    if (contents.privateKeyPem) {
      const [leaf, ...chain] = orderChain(contents.certPems);
      const saved = await saveCertificate(m, {
        ...base,
        certPem: leaf!,
        chainPems: chain,
        sealedPrivateKey: this.keyring.seal(contents.privateKeyPem, CERT_KEY_CONTEXT),
        sealedKeyPassword: this.keyring.seal(password, CERT_PASSWORD_CONTEXT),
      });
      fingerprints.push(saved.details.fingerprintSha256);
    } else {
      for (const certPem of contents.certPems) fingerprints.push((await saveCertificate(m, { ...base, certPem })).details.fingerprintSha256);
    }
    await m.query(
      `INSERT INTO unmanaged_cert_imports (org_id, file_path, file_sha256, fingerprints, imported_by_name) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (org_id, file_sha256) DO UPDATE SET file_path = EXCLUDED.file_path, fingerprints = EXCLUDED.fingerprints,
         imported_by_name = EXCLUDED.imported_by_name, imported_at = now()`,
      [actor.orgId, file.path, file.sha256, fingerprints, actor.username],
    );
    await this.audit.record(
      {
        category: 'Pki',
        operation: AuditOperation.UnmanagedCertificatesImported,
        actor,
        target: file.path,
        description: `${fingerprints.length} certificate(s) imported from ${storeType} keystore ${file.path} in the shared path`,
      },
      m,
    );
  }
}

function parsePasswords(upload: Buffer | undefined): Record<string, unknown> {
  if (!upload || upload.length === 0) {
    throw AppError.invalid('Upload the filled-in list from getUnmanagedCertList as a text file (JSON object of "<file>::<n>" to password)');
  }
  let parsed: unknown;
  try {
    parsed = parseLenientJson(upload.toString('utf8').replace(/^\uFEFF/, ''));
  } catch (error) {
    if (!(error instanceof InputDataSyntaxError)) throw error;
    parsed = undefined;
  }
  // The list arrives as getUnmanagedCertList's details (an array holding one object) or as that object.
  const object = Array.isArray(parsed) && parsed.length === 1 ? parsed[0] : parsed;
  if (typeof object !== 'object' || object === null || Array.isArray(object) || Object.keys(object).length === 0) {
    throw AppError.invalid('The uploaded file must be a JSON object mapping "<file>::<n>" to the keystore password');
  }
  return object as Record<string, unknown>;
}
