import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Actor, AuditOperation, AuditWriter } from '@app/audit';
import { Keyring } from '@app/crypto';
import { PkiSecretGate, pkiSecretTarget } from '@app/gate';
import { AppError, FileReply } from '@app/http';
import { createCsr, encryptPrivateKeyPem, exportCertificate, loadPrivateKey, parseCsr, placeholderCertificate, publicKeyMatches, toPkcs8Pem } from '../certs';
import { certTime, fileNameFor } from './cert-format';
import { ExportCsrDto } from './bookkeeping.dto';
import { mapCertErrors } from './cert-errors';
import { CertificateRequestDto } from './certificate.dto';
import { keyPassword, requestOptions } from './certificate-request';
import { ImportCsrDto } from './csr.dto';
import { notificationEmails } from './notification-email';
import { CsrRepository, CsrRow } from './csr.repository';

export const CSR_KEY_CONTEXT = 'csrs.private_key';
export const CSR_PASSWORD_CONTEXT = 'csrs.key_password';

export interface SavedCsr {
  CSR_ID: number;
  commonName: string;
  CSR: string;
}

/** createCSR, importCSR, getCSRList; signing is in SigningService. */
@Injectable()
export class CsrService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly csrs: CsrRepository,
    private readonly keyring: Keyring,
    private readonly audit: AuditWriter,
    private readonly gate: PkiSecretGate,
  ) {}

  async create(actor: Actor, dto: CertificateRequestDto): Promise<SavedCsr> {
    const email = notificationEmails(dto.Email);
    const options = await mapCertErrors(() => requestOptions(dto));
    const made = await mapCertErrors(() => createCsr(options));
    const id = await this.dataSource.transaction(async (m) => {
      const newId = await this.csrs.insert(m, {
        orgId: actor.orgId,
        commonName: dto.CNAME,
        csrPem: made.csrPem,
        sealedPrivateKey: this.keyring.seal(made.privateKeyPem, CSR_KEY_CONTEXT),
        sealedKeyPassword: this.keyring.seal(keyPassword(dto.PASSWORD), CSR_PASSWORD_CONTEXT),
        keyAlgorithm: made.keySpec.algorithm,
        keyLength: made.keySpec.length,
        signatureAlgorithm: made.signatureAlgorithm,
        validity: String(dto.VALIDITY ?? 365),
        validityType: dto.VALIDITY_TYPE ?? 'days',
        storeType: dto.StoreType ?? 'PKCS12',
        email,
        createdByName: actor.username,
        createdBy: actor.id || null,
      });
      await this.audit.record({ category: 'Pki', operation: AuditOperation.CsrCreated, actor, target: dto.CNAME, description: `CSR ${newId}` }, m);
      return newId;
    });
    return { CSR_ID: id, commonName: dto.CNAME, CSR: made.csrPem };
  }

  /** importCSR: the request's signature must verify; a key must come with its password and match. */
  async import(actor: Actor, dto: ImportCsrDto, csrFile: Buffer | undefined, keyFile: Buffer | undefined): Promise<SavedCsr> {
    if (!csrFile?.length) throw AppError.invalid('The CSR file (part CSR) is required');
    const parsed = await mapCertErrors(() => parseCsr(csrFile));
    let privateKeyPem: string | undefined;
    if (keyFile?.length) {
      if (!dto.password) throw AppError.invalid('password is required when a Key file is given');
      privateKeyPem = await mapCertErrors(() => {
        const text = keyFile.toString('utf8');
        const key = loadPrivateKey(text.includes('-----BEGIN') ? text : keyFile, dto.password);
        if (!publicKeyMatches(key, parsed.publicKey)) throw AppError.invalid('The Key file does not belong to the CSR');
        return toPkcs8Pem(key);
      });
    }
    const commonName = parsed.details.commonName || parsed.details.subject.dn;
    const id = await this.dataSource.transaction(async (m) => {
      const newId = await this.csrs.insert(m, {
        orgId: actor.orgId,
        commonName,
        csrPem: parsed.csrPem,
        sealedPrivateKey: privateKeyPem ? this.keyring.seal(privateKeyPem, CSR_KEY_CONTEXT) : null,
        sealedKeyPassword: dto.password ? this.keyring.seal(dto.password, CSR_PASSWORD_CONTEXT) : null,
        keyAlgorithm: parsed.details.keyAlgorithm,
        keyLength: parsed.details.keyLength,
        signatureAlgorithm: parsed.details.signatureAlgorithm,
        validity: '',
        validityType: 'days',
        storeType: 'PKCS12',
        email: notificationEmails(dto.Email),
        createdByName: actor.username,
        createdBy: actor.id || null,
      });
      await this.audit.record({ category: 'Pki', operation: AuditOperation.CsrImported, actor, target: commonName, description: `CSR ${newId}` }, m);
      return newId;
    });
    return { CSR_ID: id, commonName, CSR: parsed.csrPem };
  }

  async list(actor: Actor): Promise<Record<string, unknown>[]> {
    return (await this.csrs.listInOrg(actor.orgId)).map(csrEntry);
  }

  async find(orgId: number, id: number): Promise<CsrRow> {
    const row = await this.csrs.findInOrg(orgId, id);
    if (!row) throw AppError.notFound(`No CSR with CSR_ID ${id} was found`);
    return row;
  }

  /**
   * exportCSR (KMP): the request (PEM), its private key (PEM, encrypted with the CSR's password)
   * or its key store (the CSR's StoreType, the key with a placeholder certificate, under the same
   * password). A key or key store is a secret: PkiSecretGate decides and audits before it is opened.
   */
  async export(actor: Actor, dto: ExportCsrDto): Promise<FileReply> {
    const id = /^\d{1,9}$/.test(dto.CSR_ID.trim()) ? Number(dto.CSR_ID) : NaN;
    if (!Number.isInteger(id) || id < 1) throw AppError.invalid('CSR_ID must be a whole number');
    const fileType = dto.fileType ?? 'CSR';
    if (fileType === 'CSR') {
      const row = await this.find(actor.orgId, id);
      return new FileReply(Buffer.from(row.csr_pem), fileNameFor(row.common_name, '.csr'), 'application/pkcs10');
    }
    const row = await this.csrs.findInOrg(actor.orgId, id);
    const kind = fileType === 'PrivateKey' ? 'csr-private-key' : 'csr-keystore';
    const target = pkiSecretTarget(kind, row?.common_name ?? `CSR_ID ${id}`, row && { ...row, name: row.common_name }, {
      notFound: `No CSR with CSR_ID ${id} was found`,
      detail: `CSR_ID ${id}, fileType ${fileType}`,
    });
    return this.gate.release(actor, target, async () => {
      const { privateKeyPem, password } = await this.openSecrets(row!);
      if (!privateKeyPem) throw AppError.notFound(`CSR ${id} (${row!.common_name}) was imported without its private key; only fileType CSR can be exported`);
      if (!password) throw AppError.invalid(`CSR ${id} has no password to protect its key with`);
      if (fileType === 'PrivateKey') {
        return new FileReply(Buffer.from(encryptPrivateKeyPem(privateKeyPem, password)), fileNameFor(row!.common_name, '.key'), 'application/x-pem-file');
      }
      const file = await mapCertErrors(async () => {
        const certPem = await placeholderCertificate(await parseCsr(row!.csr_pem), privateKeyPem);
        return exportCertificate(row!.store_type === 'JKS' ? 'JKS' : 'PKCS', { certPem, privateKeyPem, password, alias: row!.common_name });
      });
      return new FileReply(file.body, fileNameFor(row!.common_name, file.fileSuffix), file.contentType);
    });
  }

  async openSecrets(row: CsrRow): Promise<{ privateKeyPem?: string; password?: string }> {
    const sealed = await this.csrs.readSecrets(row.org_id, row.id);
    return {
      privateKeyPem: sealed.privateKey ? await this.keyring.openText(sealed.privateKey, CSR_KEY_CONTEXT) : undefined,
      password: sealed.keyPassword ? await this.keyring.openText(sealed.keyPassword, CSR_PASSWORD_CONTEXT) : undefined,
    };
  }
}

/** CSR entry (docs/api/pki.md). */
function csrEntry(row: CsrRow): Record<string, unknown> {
  return {
    CSR_ID: row.id,
    DOMAIN_NAME: row.common_name,
    KEYALGORITHM: row.key_algorithm,
    KEY_STRENGTH: row.key_length,
    SIGNATURE_ALGORITHM: row.signature_algorithm,
    KEYSTORE_TYPE: row.store_type,
    isPassword: row.has_password,
    VALIDITY: row.validity ? `${row.validity} ${row.validity_type}` : '',
    CREATED_BY: row.created_by_name,
    // KMP's GeneratedList entries carry the creator's user id.
    LOGIN_ID: row.created_by,
    CREATED_DATE: certTime(row.created_at),
  };
}
