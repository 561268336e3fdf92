import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Actor, AuditOperation, AuditWriter } from '@app/audit';
import { AppError } from '@app/http';
import { createSelfSignedCertificate, isJks, loadCertificate, loadPrivateKey, normaliseSerial, orderChain, publicKeyMatches, readCertificatePems, readKeyStoreOffLoop } from '../certs';
import { saveCertificate, SavedCertificate } from '../cert-store';
import { mapCertErrors } from './cert-errors';
import { AddCertificateDto, CertificateListDto, CertificateRequestDto, CertificateSelectorDto, NotificationEmailDto } from './certificate.dto';
import { DeleteCertificateDto } from './bookkeeping.dto';
import { fieldValuesOf } from './additional-fields.repository';
import { notificationEmails } from './notification-email';
import { CertificateRepository, CertificateRow } from './certificate.repository';
import { keyPassword, requestOptions } from './certificate-request';
import { CertificateSecrets } from './certificate-secrets';
import { certificateView, CertificateView, expiryEntry, listEntry } from './certificate-view';

const DAY_MS = 86_400_000;

export interface CertificateSummary {
  commonName: string;
  Certificate_ID: number;
  serialNumber: string;
}

export function parseSerial(selector: CertificateSelectorDto): string | undefined {
  return selector.serial_number?.trim() ? normaliseSerial(selector.serial_number) : undefined;
}

export function certificateNotFound(selector: CertificateSelectorDto, serial: string | undefined): string {
  return `No certificate with common name ${selector.common_name}${serial ? ` and serial number ${selector.serial_number}` : ''} was found`;
}

/** The certificate inventory: create, add, find, list, delete. */
@Injectable()
export class CertificatesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly certificates: CertificateRepository,
    private readonly secrets: CertificateSecrets,
    private readonly audit: AuditWriter,
  ) {}

  /** createCertificate: a self-signed certificate with a new key, sealed with its password. */
  async createSelfSigned(actor: Actor, dto: CertificateRequestDto): Promise<CertificateSummary> {
    const email = notificationEmails(dto.Email);
    const made = await mapCertErrors(async () => createSelfSignedCertificate({ ...requestOptions(dto), template: 'WebServer' }));
    const saved = await this.dataSource.transaction(async (m) => {
      const result = await saveCertificate(m, {
        orgId: actor.orgId,
        certPem: made.certPem,
        sealedPrivateKey: this.secrets.sealKey(made.privateKeyPem),
        sealedKeyPassword: this.secrets.sealPassword(keyPassword(dto.PASSWORD)),
        storeType: dto.StoreType ?? 'PKCS12',
        template: 'WebServer',
        source: 'self-signed',
        createdByName: actor.username,
        notificationEmail: email,
      });
      await this.audit.record(this.event(actor, AuditOperation.CertificateCreated, result, 'self-signed'), m);
      return result;
    });
    return summary(saved);
  }

  /** addCertificate: CERTFILE (PEM, DER or PKCS#7; one or a chain) or KEYSTORE (PKCS#12 or JKS). */
  async add(actor: Actor, dto: AddCertificateDto, file: Buffer | undefined): Promise<{ saved: SavedCertificate }> {
    if (!file?.length) throw AppError.invalid('The certificate file (part File) is required');
    const keystore = dto.fileType === 'KEYSTORE';
    const email = notificationEmails(dto.Email);
    const parsed = await mapCertErrors(() => (keystore ? parseKeyStore(file, dto.PASSWORD ?? '') : parseCertFile(file)));
    const saved = await this.dataSource.transaction(async (m) => {
      const result = await saveCertificate(m, {
        orgId: actor.orgId,
        certPem: parsed.leaf,
        chainPems: parsed.chain,
        sealedPrivateKey: parsed.privateKeyPem ? this.secrets.sealKey(parsed.privateKeyPem) : null,
        sealedKeyPassword: parsed.privateKeyPem && dto.PASSWORD ? this.secrets.sealPassword(dto.PASSWORD) : null,
        storeType: parsed.storeType,
        source: 'imported',
        createdByName: actor.username,
        notificationEmail: email,
      });
      await this.audit.record(this.event(actor, AuditOperation.CertificateAdded, result, keystore ? 'keystore' : 'certificate file'), m);
      return result;
    });
    return { saved };
  }

  /** The certificate `common_name` (+ `serial_number`) names; see CertificateRepository.pick. */
  async find(orgId: number, selector: CertificateSelectorDto): Promise<CertificateRow> {
    const serial = parseSerial(selector);
    const row = await this.certificates.pick(orgId, selector.common_name, serial);
    if (!row) throw AppError.notFound(certificateNotFound(selector, serial));
    return row;
  }

  async view(actor: Actor, selector: CertificateSelectorDto): Promise<CertificateView> {
    const row = await this.find(actor.orgId, selector);
    const fields = (await fieldValuesOf(this.dataSource.manager, actor.orgId, [row.id])).get(row.id) ?? [];
    return certificateView(row, await this.certificates.endpointsOf(actor.orgId, row.id), fields);
  }

  async list(actor: Actor, dto: CertificateListDto): Promise<Record<string, unknown>[]> {
    const algorithm = dto.withSignatureAlgorithm?.toUpperCase().replace(/[^A-Z0-9]/g, '');
    const rows = await this.certificates.listEntries(actor.orgId, {
      expiresBefore: dto.withExpiryDaysLessThan === undefined ? undefined : new Date(Date.now() + dto.withExpiryDaysLessThan * DAY_MS),
      keyLength: dto.withKeyLength,
      signatureAlgorithm: algorithm || undefined,
      withPrivateKey: dto.withPrivateKey,
    });
    const fields = await fieldValuesOf(this.dataSource.manager, actor.orgId, [...new Set(rows.map((r) => r.id))]);
    return rows.map((row) => listEntry(row, fields.get(row.id) ?? []));
  }

  async expiryList(actor: Actor): Promise<Record<string, unknown>[]> {
    return (await this.certificates.expiryList(actor.orgId)).map(expiryEntry);
  }

  /** setCertificateNotificationEmail: who is told before this certificate expires (empty: nobody). */
  async setNotificationEmail(actor: Actor, dto: NotificationEmailDto): Promise<{ commonName: string; email: string }> {
    if (dto.Email === undefined) throw AppError.invalid('Email is required (an empty value stops the notices)');
    const email = notificationEmails(dto.Email);
    const row = await this.find(actor.orgId, dto);
    await this.dataSource.transaction(async (m) => {
      await this.certificates.lock(m, actor.orgId, row.id);
      await this.certificates.setNotificationEmail(m, actor.orgId, row.id, email);
      await this.audit.record(
        {
          category: 'Pki',
          operation: AuditOperation.CertificateNotificationEmailChanged,
          actor,
          target: row.common_name,
          description: `serial ${row.serial_number}: ${email || 'no expiry notices'}`,
        },
        m,
      );
    });
    return { commonName: row.common_name, email };
  }

  /**
   * deleteCertificate. With exclude_certificate (KMP) the certificate's fingerprint goes on the
   * organisation's exclusion list, so a later discovery does not bring it back; reason is kept
   * there and in the audit row.
   */
  async delete(actor: Actor, selector: DeleteCertificateDto): Promise<{ commonName: string; excluded: boolean }> {
    const row = await this.find(actor.orgId, selector);
    // The CRL is built from the inventory: a revoked, unexpired certificate must stay listed.
    if (row.revoked_at && row.ca_id !== null && row.not_after > new Date()) {
      throw AppError.invalid(`Certificate ${row.common_name} is revoked and stays on its CA's CRL until it expires; it cannot be deleted before then`);
    }
    await this.dataSource.transaction(async (m) => {
      await this.certificates.lock(m, actor.orgId, row.id);
      await this.certificates.delete(m, actor.orgId, row.id);
      if (selector.exclude_certificate) await this.certificates.exclude(m, row, selector.reason ?? '', actor.username);
      const exclusion = selector.exclude_certificate ? '; excluded from discovery' : '';
      await this.audit.record(
        {
          category: 'Pki',
          operation: AuditOperation.CertificateDeleted,
          actor,
          target: row.common_name,
          reason: selector.reason ?? '',
          description: `serial ${row.serial_number}${exclusion}`,
        },
        m,
      );
    });
    return { commonName: row.common_name, excluded: selector.exclude_certificate === true };
  }

  private event(actor: Actor, operation: string, saved: SavedCertificate, how: string) {
    return {
      category: 'Pki' as const,
      operation,
      actor,
      target: saved.details.subject.cname,
      description: `${how}, serial ${saved.details.serialNumber}`,
    };
  }
}

export function summary(saved: SavedCertificate): CertificateSummary {
  return { commonName: saved.details.subject.cname, Certificate_ID: saved.id, serialNumber: saved.details.serialNumber };
}

interface ParsedUpload {
  leaf: string;
  chain: string[];
  privateKeyPem?: string;
  storeType: string;
}

function parseCertFile(file: Buffer): ParsedUpload {
  const [leaf, ...chain] = orderChain(readCertificatePems(file));
  return { leaf, chain, storeType: 'PKCS12' };
}

/** The certificate that belongs to the key is the leaf, whatever order the store keeps. */
async function parseKeyStore(file: Buffer, password: string): Promise<ParsedUpload> {
  const contents = await readKeyStoreOffLoop(file, password);
  const storeType = isJks(file) ? 'JKS' : 'PKCS12';
  const ordered = orderChain(contents.certPems);
  if (ordered.length === 0) throw AppError.invalid('The keystore holds no certificate');
  if (!contents.privateKeyPem) return { leaf: ordered[0], chain: ordered.slice(1), storeType };
  const key = loadPrivateKey(contents.privateKeyPem);
  const leaf = ordered.find((pem) => publicKeyMatches(key, loadCertificate(pem).publicKey));
  if (!leaf) throw AppError.invalid('The keystore holds a private key without its certificate');
  return { leaf, chain: orderChain(ordered.filter((p) => p !== leaf)), privateKeyPem: contents.privateKeyPem, storeType };
}
