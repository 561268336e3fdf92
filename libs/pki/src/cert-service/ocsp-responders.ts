import { Injectable, Logger } from '@nestjs/common';
import { createPublicKey } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AuditOperation, AuditWriter } from '@app/audit';
import { Keyring } from '@app/crypto';
import {
  buildNameDer,
  CertificateAuthority,
  defaultSignatureAlgorithm,
  generateKeyPair,
  keySpecOf,
  loadPrivateKey,
  OcspSigner,
  publicKeyBitsOf,
  readCertificateDers,
} from '../certs';
import { spkiOf } from '../certs';
import { AuthorityRepository, AuthorityRow, StoredResponder } from './authority.repository';

const OCSP_KEY_CONTEXT = 'certificate_authorities.ocsp_private_key';
const DAY_MS = 86_400_000;
/** A responder certificate lives 30 days and is replaced once fewer than 7 remain. */
const RESPONDER_DAYS = 30;
const RENEW_BEFORE_MS = 7 * DAY_MS;

type Responder = NonNullable<OcspSigner['responder']> & { notAfter: Date };

/**
 * Each CA's delegated OCSP responder (RFC 6960 §4.2.2.2): an EC P-256 key and a
 * certificate the CA issues with id-kp-OCSPSigning and ocsp-nocheck, so the CA key signs
 * once a month instead of on every response. Stored sealed with the CA and made once for
 * all instances (the CA row is locked while it is renewed).
 */
@Injectable()
export class OcspResponders {
  private readonly logger = new Logger('OcspResponders');
  private readonly loaded = new Map<number, Promise<Responder>>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly authorities: AuthorityRepository,
    private readonly keyring: Keyring,
    private readonly audit: AuditWriter,
  ) {}

  async responderFor(row: AuthorityRow, ca: CertificateAuthority): Promise<Responder> {
    const cached = this.loaded.get(row.id);
    if (cached) {
      const responder = await cached.catch(() => undefined);
      if (responder && fresh(responder.notAfter)) return responder;
    }
    const pending = this.obtain(row, ca);
    this.loaded.set(row.id, pending);
    pending.catch(() => this.loaded.delete(row.id));
    return pending;
  }

  private async obtain(row: AuthorityRow, ca: CertificateAuthority): Promise<Responder> {
    const stored = await this.authorities.readOcspResponder(row);
    if (stored && fresh(stored.notAfter)) return this.open(stored);
    const made = await this.dataSource.transaction(async (m) => {
      await this.authorities.lock(m, row);
      const again = await this.authorities.readOcspResponder(row, m);
      if (again && fresh(again.notAfter)) return again;
      const keys = await generateKeyPair({ algorithm: 'EC', length: 256 });
      const issued = await ca.issue(
        { subjectDer: buildNameDer({ commonName: `${row.common_name} OCSP Responder`.slice(0, 64) }), spkiDer: spkiOf(createPublicKey(keys.publicKeyPem)) },
        { ocspResponder: true, validityDays: RESPONDER_DAYS },
      );
      const responder: StoredResponder = {
        certificatePem: issued.certPem,
        sealedKey: this.keyring.seal(keys.privateKeyPem, OCSP_KEY_CONTEXT),
        notAfter: issued.notAfter,
      };
      await this.authorities.storeOcspResponder(m, row, responder);
      await this.audit.record(
        {
          category: 'Pki',
          operation: AuditOperation.OcspResponderIssued,
          orgId: row.org_id,
          target: row.name,
          description: `OCSP responder certificate for ${row.name}, serial ${issued.serialNumber}, valid until ${issued.notAfter.toISOString()}`,
        },
        m,
      );
      this.logger.log(`Issued the OCSP responder certificate of ${row.name} (serial ${issued.serialNumber})`);
      return responder;
    });
    return this.open(made);
  }

  private async open(stored: StoredResponder): Promise<Responder> {
    const key = loadPrivateKey(await this.keyring.openText(stored.sealedKey, OCSP_KEY_CONTEXT));
    const spki = spkiOf(createPublicKey(key));
    const [certDer] = readCertificateDers(stored.certificatePem);
    return {
      key,
      certDer,
      publicKeyBits: publicKeyBitsOf(spki),
      signatureAlgorithm: defaultSignatureAlgorithm(keySpecOf(key)),
      notAfter: new Date(stored.notAfter),
    };
  }
}

function fresh(notAfter: Date): boolean {
  return new Date(notAfter).getTime() - Date.now() > RENEW_BEFORE_MS;
}
