import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { Actor, AuditOperation, AuditWriter } from '@app/audit';
import { AppError } from '@app/http';
import { normaliseSerial, parseCsr, ParsedCsr, resolveTemplate, ValidityPeriod, validityPeriod } from '../certs';
import { CertificateSource, saveCertificate } from '../cert-store';
import { refuseNamesNotAllowed } from './allowed-names';
import { AuthorityRow } from './authority.repository';
import { CertificateAuthoritiesService } from './certificate-authorities.service';
import { isUniqueViolation, mapCertErrors } from './cert-errors';
import { CertificateSecrets } from './certificate-secrets';
import { summary, CertificateSummary } from './certificates.service';
import { SignCsrDto } from './csr.dto';
import { CsrRow } from './csr.repository';
import { CsrService } from './csr.service';
import { notificationEmails } from './notification-email';

const SERIAL_UNIQUE = 'certificates_ca_serial_key';
const SERIAL_ATTEMPTS = 3;

export interface SignedCertificate extends CertificateSummary {
  certificate: string;
  chain: string;
}

export interface IssueRequest {
  caRow: AuthorityRow;
  /** The request to sign; its subject, key and SANs go into the certificate. */
  parsed: ParsedCsr;
  validity: ValidityPeriod;
  template?: string;
  isIntermediate?: boolean;
  /** The key we hold for it, if any (sealed when stored). */
  privateKeyPem?: string | null;
  password?: string | null;
  storeType?: string;
  source?: CertificateSource;
  /** Start of the audit description; the serial is appended. */
  description: string;
  /** Where expiry notices go (empty: none). */
  notificationEmail?: string;
  /** Runs in the transaction that stores the certificate (e.g. to link an ACME order to it). */
  inTransaction?: (m: EntityManager, certificateId: number) => Promise<void>;
}

/**
 * signCSR. ENTCA (or MSCA): the CA named by caName (default: our issuing CA) with the
 * profile named by templateName. signWithRoot: the CA named by rootCertificateCommonName
 * and rootCertificateSerialNumber, for Validity days, as a leaf or an intermediate.
 */
@Injectable()
export class SigningService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly cas: CertificateAuthoritiesService,
    private readonly csrs: CsrService,
    private readonly secrets: CertificateSecrets,
    private readonly audit: AuditWriter,
  ) {}

  async sign(actor: Actor, dto: SignCsrDto): Promise<SignedCertificate> {
    const csr = await this.csrs.find(actor.orgId, dto.CSR_ID);
    const withRoot = dto.signType === 'signWithRoot';
    const template = withRoot ? undefined : await mapCertErrors(() => resolveTemplate(dto.templateName?.trim() || undefined).name);
    const caRow = withRoot ? await this.rootFor(actor, dto) : await this.cas.findForSigning(actor.orgId, dto.caName);
    const isIntermediate = withRoot && dto.isIntermediate === true;
    if (isIntermediate) await this.cas.assertMaySubordinate(actor, caRow);
    const parsed = await mapCertErrors(() => parseCsr(csr.csr_pem));
    const validity = await mapCertErrors(() => validityFor(csr, withRoot ? dto.Validity : undefined));
    const email = dto.Email !== undefined ? notificationEmails(dto.Email) : csr.email;
    const { privateKeyPem, password } = await this.csrs.openSecrets(csr);
    return this.issue(actor, {
      caRow,
      parsed,
      validity,
      template,
      isIntermediate,
      privateKeyPem,
      password,
      storeType: csr.store_type,
      notificationEmail: email,
      description: `CSR ${csr.id} signed by ${caRow.name}`,
    });
  }

  /**
   * The one issuing path of our CAs (signCSR, ACME): checks the names against the
   * organisation's list for a server-wide CA, signs, stores the certificate in the actor's
   * organisation and audits it in one transaction.
   */
  async issue(actor: Actor, request: IssueRequest): Promise<SignedCertificate> {
    const { caRow, parsed, validity, template, isIntermediate, privateKeyPem, password } = request;
    // A subordinate of a server-wide CA needs the provider's super administrator (assertMaySubordinate); names are for leaves.
    if (!isIntermediate) await refuseNamesNotAllowed(this.dataSource.manager, actor.orgId, caRow, parsed.subjectDer, parsed.sanEntries);
    const ca = await this.cas.load(caRow);
    for (let attempt = 1; ; attempt++) {
      const issued = await mapCertErrors(() =>
        ca.signCsr(parsed, { validity, template, isIntermediate, crlDistributionPointUrl: this.cas.crlUrl(caRow) }),
      );
      try {
        const saved = await this.dataSource.transaction(async (m) => {
          const result = await saveCertificate(m, {
            orgId: actor.orgId,
            certPem: issued.certPem,
            chainPems: issued.chainPems,
            sealedPrivateKey: privateKeyPem ? this.secrets.sealKey(privateKeyPem) : null,
            sealedKeyPassword: password ? this.secrets.sealPassword(password) : null,
            storeType: request.storeType,
            caId: caRow.id,
            template: isIntermediate ? 'SubordinateCA' : (template ?? 'WebServer'),
            source: request.source ?? 'signed',
            createdByName: actor.username,
            notificationEmail: request.notificationEmail ?? '',
          });
          await this.audit.record(
            {
              category: 'Pki',
              operation: AuditOperation.CertificateSigned,
              actor,
              target: result.details.subject.cname,
              description: `${request.description}, serial ${result.details.serialNumber}${isIntermediate ? ', intermediate CA' : ''}`,
            },
            m,
          );
          await request.inTransaction?.(m, result.id);
          return result;
        });
        return { ...summary(saved), certificate: issued.certPem, chain: issued.chainPems.join('') };
      } catch (error) {
        // A random 126-bit serial repeating is next to impossible, but it must never be reused.
        if (attempt < SERIAL_ATTEMPTS && isUniqueViolation(error, SERIAL_UNIQUE)) continue;
        throw error;
      }
    }
  }

  private rootFor(actor: Actor, dto: SignCsrDto): Promise<AuthorityRow> {
    const commonName = dto.rootCertificateCommonName?.trim();
    if (!commonName) throw AppError.invalid('rootCertificateCommonName is required when signType is signWithRoot');
    const serial = dto.rootCertificateSerialNumber?.trim() ? normaliseSerial(dto.rootCertificateSerialNumber) : undefined;
    return this.cas.findRoot(actor.orgId, commonName, serial);
  }
}

/** signWithRoot: Validity days; otherwise the validity asked for when the CSR was made (default 365 days). */
function validityFor(csr: CsrRow, days: number | undefined): ValidityPeriod {
  if (days !== undefined) return validityPeriod(days, 'days');
  return csr.validity ? validityPeriod(csr.validity, csr.validity_type) : validityPeriod(365, 'days');
}
