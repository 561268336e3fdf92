import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Keyring } from '@app/crypto';
import { AppError } from '@app/http';
import { CertificateRepository, CertificateRow } from './certificate.repository';

export const CERT_KEY_CONTEXT = 'certificates.private_key';
export const CERT_PASSWORD_CONTEXT = 'certificates.key_password';

export interface OpenedSecrets {
  /** Unencrypted PKCS#8 PEM. */
  privateKeyPem?: string;
  password?: string;
}

/** Seals and opens a certificate's private key and key password (distinct keyring contexts). */
@Injectable()
export class CertificateSecrets {
  constructor(
    private readonly keyring: Keyring,
    private readonly certificates: CertificateRepository,
  ) {}

  sealKey(privateKeyPem: string): Buffer {
    return this.keyring.seal(privateKeyPem, CERT_KEY_CONTEXT);
  }

  sealPassword(password: string): Buffer {
    return this.keyring.seal(password, CERT_PASSWORD_CONTEXT);
  }

  /** For an export, only after PkiSecretGate.release; else to use the key on the organisation's behalf. */
  async open(row: CertificateRow, m?: EntityManager): Promise<OpenedSecrets> {
    const sealed = await this.certificates.readSecrets(row.org_id, row.id, m);
    return {
      privateKeyPem: sealed.privateKey ? await this.keyring.openText(sealed.privateKey, CERT_KEY_CONTEXT) : undefined,
      password: sealed.keyPassword ? await this.keyring.openText(sealed.keyPassword, CERT_PASSWORD_CONTEXT) : undefined,
    };
  }

  /** The key, or a clear refusal naming the certificate. */
  async requireKeyOf(row: CertificateRow, opened: OpenedSecrets): Promise<OpenedSecrets & { privateKeyPem: string }> {
    if (!opened.privateKeyPem) {
      throw AppError.invalid(`This server does not hold the private key of certificate ${row.common_name}`);
    }
    return opened as OpenedSecrets & { privateKeyPem: string };
  }
}
