import { Inject, Injectable } from '@nestjs/common';
import { createPublicKey } from 'node:crypto';
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import { DataSource, EntityManager } from 'typeorm';
import { Actor, AuditOperation, AuditWriter } from '@app/audit';
import { APP_CONFIG, AppConfig } from '@app/config';
import { Keyring } from '@app/crypto';
import { AppError } from '@app/http';
import {
  buildNameDer,
  CaRequest,
  CertificateAuthority,
  certificateDetails,
  createIntermediateCa,
  createRootCa,
  CreatedCa,
  generateKeyPair,
  joinPems,
  Publication,
  readCertificatePems,
  SanEntry,
  subjectFromRequest,
} from '../certs';
import { AuthorityRepository, AuthorityRow } from './authority.repository';
import { CreateCaDto } from './authority.dto';
import { isUniqueViolation, mapCertErrors } from './cert-errors';
import { CertificateRepository } from './certificate.repository';
import { mayManageServerWideCas } from './server-wide-cas';

export const CA_KEY_CONTEXT = 'certificate_authorities.private_key';
export const ROOT_CA_NAME = 'root-ca';
export const ISSUING_CA_NAME = 'issuing-ca';
/** Issues the services' own TLS certificate; internal: no API caller lists it or signs with it. */
export const SERVICE_CA_NAME = 'service-ca';
// CA names are unique per organisation (migration AuthoritiesPerOrganisation).
const CA_NAME_UNIQUE = 'certificate_authorities_org_name_key';
// Serialises first-start CA creation across instances sharing the database.
const DEFAULT_CAS_LOCK = 727265652;

export interface CreatedAuthority {
  id: number;
  name: string;
  commonName: string;
  serialNumber: string;
  certificatePem: string;
  crlUrl: string;
}

type PublishedAs = Pick<AuthorityRow, 'id' | 'org_id' | 'name'>;

/**
 * How the public /crl, /ca and /ocsp routes name a CA: a server-wide CA by name; an
 * organisation's CA by id (names are unique per organisation only).
 */
function publicRef(ca: PublishedAs): string {
  return ca.org_id === null ? encodeURIComponent(ca.name) : String(ca.id);
}

/** Our own CAs: the two made at first start, the ones made by createCA, and adopted ones. */
@Injectable()
export class CertificateAuthoritiesService {
  private readonly loaded = new Map<number, Promise<CertificateAuthority>>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly authorities: AuthorityRepository,
    private readonly certificates: CertificateRepository,
    private readonly keyring: Keyring,
    private readonly audit: AuditWriter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * The root CA and the issuing CA below it (server-wide, usable by every organisation), and
   * the separate internal CA of the services' TLS certificate, made exactly once whatever the
   * number of instances.
   */
  async ensureDefaults(): Promise<void> {
    const names = [ROOT_CA_NAME, ISSUING_CA_NAME, SERVICE_CA_NAME];
    const present = await Promise.all(names.map((n) => this.authorities.findOwnedByName(null, n)));
    if (present.every(Boolean)) return;
    await this.dataSource.transaction(async (m) => {
      await m.query('SELECT pg_advisory_xact_lock($1)', [DEFAULT_CAS_LOCK]);
      let root = await this.authorities.findOwnedByName(null, ROOT_CA_NAME, m);
      if (!root) {
        const made = await createRootCa({
          subject: { commonName: 'Credential Vault Root CA', org: 'Credential Vault' },
          keyAlgorithm: 'EC',
          keyLength: 384,
          validityDays: 7300,
          pathLength: 1,
        });
        const id = await this.insertMade(m, made, { orgId: null, name: ROOT_CA_NAME, kind: 'root', parentId: null });
        root = await this.authorities.findOwnedByName(null, ROOT_CA_NAME, m);
        if (!root || root.id !== id) throw new Error('root CA row not readable after insert');
      }
      if (!(await this.authorities.findOwnedByName(null, ISSUING_CA_NAME, m))) {
        const parent = await this.loadMaterial(root, await this.readKey(root, m));
        const made = await createIntermediateCa(parent, {
          subject: { commonName: 'Credential Vault Issuing CA', org: 'Credential Vault' },
          keyAlgorithm: 'EC',
          keyLength: 256,
          validityDays: 3650,
          pathLength: 0,
          crlDistributionPointUrl: this.crlUrl(root),
        });
        await this.insertMade(m, made, { orgId: null, name: ISSUING_CA_NAME, kind: 'intermediate', parentId: root.id });
      }
      if (!(await this.authorities.findOwnedByName(null, SERVICE_CA_NAME, m))) {
        // Its own root, not below root-ca: a client that trusts root-ca (whose issuing CA every
        // organisation signs with) must not thereby trust a certificate for the vault's name.
        const made = await createRootCa({
          subject: { commonName: 'Credential Vault Service CA', org: 'Credential Vault' },
          keyAlgorithm: 'EC',
          keyLength: 384,
          validityDays: 7300,
          pathLength: 0,
        });
        await this.insertMade(m, made, { orgId: null, name: SERVICE_CA_NAME, kind: 'root', parentId: null, internal: true });
      }
    });
  }

  /** createCA: a root, or an intermediate below a CA the caller's organisation can use. */
  async create(actor: Actor, dto: CreateCaDto): Promise<CreatedAuthority> {
    const name = dto.caName.trim();
    if (!/^[A-Za-z][A-Za-z0-9 ._-]*$/.test(name)) {
      throw AppError.invalid('caName must start with a letter and hold only letters, digits, spaces, dots, dashes and underscores');
    }
    // Server-wide names too: an organisation's CA must not shadow root-ca or issuing-ca.
    if ((await this.authorities.findOwnedByName(actor.orgId, name)) || (await this.authorities.findOwnedByName(null, name))) {
      throw AppError.conflict(`A certificate authority named ${name} already exists`);
    }
    const kind = dto.caType === 'root' ? 'root' : 'intermediate';
    const parent = kind === 'intermediate' ? await this.findForSigning(actor.orgId, dto.parentCaName ?? ROOT_CA_NAME) : undefined;
    if (parent) await this.assertMaySubordinate(actor, parent);
    const request: CaRequest = {
      subject: subjectFromRequest({ ...dto, CNAME: dto.CNAME?.trim() || name }),
      keyAlgorithm: dto.ALG,
      keyLength: dto.LEN,
      signatureAlgorithm: dto.SIGALG,
      validityDays: dto.VALIDITY,
      pathLength: dto.pathLength,
    };
    const made = await mapCertErrors(async () =>
      parent
        ? createIntermediateCa(await this.load(parent), { ...request, crlDistributionPointUrl: this.crlUrl(parent) })
        : createRootCa(request),
    );
    const id = await this.dataSource
      .transaction(async (m) => {
        const newId = await this.insertMade(m, made, { orgId: actor.orgId, name, kind, parentId: parent?.id ?? null });
        await this.audit.record(
          { category: 'Pki', operation: AuditOperation.CertificateAuthorityCreated, actor, target: name, description: `${kind} CA, serial ${made.serialNumber}` },
          m,
        );
        return newId;
      })
      .catch((error: unknown) => {
        if (isUniqueViolation(error, CA_NAME_UNIQUE)) throw AppError.conflict(`A certificate authority named ${name} already exists`);
        throw error;
      });
    const commonName = certificateDetails(made.certPem).subject.cname;
    return { id, name, commonName, serialNumber: made.serialNumber, certificatePem: made.certPem, crlUrl: this.crlUrl({ id, org_id: actor.orgId, name }) };
  }

  /** A subordinate CA below a server-wide CA is trusted wherever our root is (createCA, signCSR isIntermediate). */
  async assertMaySubordinate(actor: Actor, parent: AuthorityRow): Promise<void> {
    if (parent.org_id !== null) return;
    if (!(await mayManageServerWideCas(this.dataSource.manager, actor))) {
      throw AppError.forbidden(`Only a super administrator may issue an intermediate CA from the built-in CA ${parent.name}`);
    }
  }

  /**
   * The services' own HTTPS certificate (docs/api/vault.md, "Transport": made by our internal CA at first start):
   * a new P-256 key and a WebServer certificate from the internal service CA for `names`.
   */
  async issueServerCertificate(names: string[]): Promise<{ certPem: string; keyPem: string; chainPems: string[] }> {
    const ca = await this.load(await this.serviceCa());
    const keys = await generateKeyPair({ algorithm: 'EC', length: 256 });
    const spkiDer = createPublicKey(keys.publicKeyPem).export({ type: 'spki', format: 'der' });
    const sans: SanEntry[] = names.map((value) => ({ type: isIP(value) ? 'ip' : 'dns', value }));
    const issued = await ca.issue(
      { subjectDer: buildNameDer({ commonName: names[0], org: 'Credential Vault' }), spkiDer, sans },
      { validityDays: 397, template: 'WebServer' },
    );
    return { certPem: issued.certPem, keyPem: keys.privateKeyPem, chainPems: issued.chainPems };
  }

  /** The certificate of the internal CA that issues the services' TLS certificate. */
  async serviceCaCertificatePem(): Promise<string> {
    return (await this.serviceCa()).certificate_pem;
  }

  private async serviceCa(): Promise<AuthorityRow> {
    const row = await this.authorities.findOwnedByName(null, SERVICE_CA_NAME);
    if (!row) throw new Error('The service CA has not been created yet');
    return row;
  }

  /** ENTCA/MSCA: the CA named by caName (its name or common name); the issuing CA by default. */
  async findForSigning(orgId: number, caName: string | undefined): Promise<AuthorityRow> {
    const wanted = caName?.trim() || ISSUING_CA_NAME;
    const found = await this.authorities.findVisibleByName(orgId, wanted);
    if (!found) {
      const known = await this.authorities.namesVisible(orgId);
      throw AppError.notFound(`Certificate authority "${wanted}" is not known; known CAs: ${known.join(', ')}`);
    }
    return found;
  }

  /** A CA the organisation may sign with (its own or a server-wide one, never the internal one), by id. */
  async findUsableById(orgId: number, id: number): Promise<AuthorityRow> {
    const found = await this.authorities.findVisibleById(orgId, id);
    if (!found) throw AppError.notFound(`Certificate authority ${id} is not known`);
    return found;
  }

  /**
   * signWithRoot: a CA by common name and serial. A CA certificate in the inventory whose
   * key we hold (imported, or signed here as an intermediate) is adopted as a CA on first use.
   */
  async findRoot(orgId: number, commonName: string, serial: string | undefined): Promise<AuthorityRow> {
    const found = await this.authorities.findVisibleByCommonName(orgId, commonName, serial);
    if (found) return found;
    const cert = await this.certificates.pick(orgId, commonName, serial);
    const what = `"${commonName}"${serial ? ` with serial ${serial}` : ''}`;
    if (!cert) throw AppError.notFound(`No CA certificate ${what} was found`);
    if (!cert.has_key) throw AppError.invalid(`Certificate ${what} cannot sign: this server does not hold its private key`);
    return this.adopt(orgId, cert.id);
  }

  async load(row: AuthorityRow): Promise<CertificateAuthority> {
    let ca = this.loaded.get(row.id);
    if (!ca) {
      ca = this.readKey(row).then((key) => this.loadMaterial(row, key));
      this.loaded.set(row.id, ca);
      ca.catch(() => this.loaded.delete(row.id));
    }
    return ca;
  }

  /** Where the CRL of a CA is published: PUBLIC_URL, else this pki service's own address. */
  crlUrl(ca: PublishedAs): string {
    return `${this.publicBase()}/crl/${publicRef(ca)}.crl`;
  }

  /** The CA's OCSP responder (POST there, or GET <url>/<base64 request>). */
  ocspUrl(ca: PublishedAs): string {
    return `${this.publicBase()}/ocsp/${publicRef(ca)}`;
  }

  /** What every certificate the CA issues carries: CRL point, OCSP responder, issuer certificate. */
  publication(ca: PublishedAs): Publication {
    return {
      crlUrl: this.crlUrl(ca),
      ocspUrl: this.ocspUrl(ca),
      caIssuersUrl: `${this.publicBase()}/ca/${publicRef(ca)}.crt`,
    };
  }

  private publicBase(): string {
    return this.config.publicUrl ?? `${this.config.tlsMode === 'off' ? 'http' : 'https'}://${hostname()}:${this.config.pkiPort}`;
  }

  private async adopt(orgId: number, certificateId: number): Promise<AuthorityRow> {
    const cert = (await this.certificates.findById(orgId, certificateId))!;
    const secrets = await this.certificates.readSecrets(orgId, certificateId);
    const privateKeyPem = await this.keyring.openText(secrets.privateKey!, 'certificates.private_key');
    const chainPems = cert.chain_pem ? readCertificatePems(cert.chain_pem) : [];
    // Refuses a certificate that is not a CA (basicConstraints, keyUsage) with the reason.
    await mapCertErrors(() => CertificateAuthority.load({ certPem: cert.certificate_pem, privateKeyPem, chainPems }));
    const existing = await this.authorities.findAdopted(orgId, cert.certificate_pem);
    if (existing) return existing;
    const name = `${cert.common_name} ${cert.serial_number}`.slice(0, 200);
    try {
      await this.authorities.insert(this.dataSource.manager, {
        orgId,
        name,
        kind: chainPems.length ? 'intermediate' : 'root',
        parentId: cert.ca_id,
        commonName: cert.common_name,
        serialNumber: cert.serial_number,
        certificatePem: cert.certificate_pem,
        chainPem: joinPems(chainPems),
        sealedPrivateKey: this.keyring.seal(privateKeyPem, CA_KEY_CONTEXT),
        keyAlgorithm: cert.key_algorithm,
      });
    } catch (error) {
      if (!isUniqueViolation(error, CA_NAME_UNIQUE)) throw error;
    }
    // Another request adopted the same certificate meanwhile; a different CA of this
    // organisation holding the name is refused rather than used.
    const adopted = await this.authorities.findAdopted(orgId, cert.certificate_pem);
    if (!adopted) throw AppError.conflict(`A certificate authority named ${name} already exists`);
    return adopted;
  }

  private async insertMade(
    m: EntityManager,
    made: CreatedCa,
    where: { orgId: number | null; name: string; kind: 'root' | 'intermediate'; parentId: number | null; internal?: boolean },
  ): Promise<number> {
    const details = certificateDetails(made.certPem);
    return this.authorities.insert(m, {
      ...where,
      commonName: details.subject.cname,
      serialNumber: details.serialNumber,
      certificatePem: details.pem,
      chainPem: joinPems(made.chainPems),
      sealedPrivateKey: this.keyring.seal(made.privateKeyPem, CA_KEY_CONTEXT),
      keyAlgorithm: `${details.keyAlgorithm}-${details.keyLength}`,
    });
  }

  private async readKey(row: AuthorityRow, m?: EntityManager): Promise<string> {
    return this.keyring.openText(await this.authorities.readSealedKey(row, m), CA_KEY_CONTEXT);
  }

  private loadMaterial(row: AuthorityRow, privateKeyPem: string): Promise<CertificateAuthority> {
    return mapCertErrors(() =>
      CertificateAuthority.load({
        certPem: row.certificate_pem,
        privateKeyPem,
        chainPems: row.chain_pem ? readCertificatePems(row.chain_pem) : [],
        publication: this.publication(row),
      }),
    );
  }
}
