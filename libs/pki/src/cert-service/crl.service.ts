import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AppError } from '@app/http';
import { createCrl } from '../certs';
import { AuthorityRepository, AuthorityRow } from './authority.repository';
import { CertificateAuthoritiesService } from './certificate-authorities.service';
import { mapCertErrors } from './cert-errors';

const DAY_MS = 86_400_000;
const CRL_LIFETIME_MS = 7 * DAY_MS;

/**
 * One signed CRL per CA, stored with the CA: re-issued (with the next CRL number) on
 * every revocation, and when a fetch finds it within a day of its nextUpdate.
 */
@Injectable()
export class CrlService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly authorities: AuthorityRepository,
    private readonly cas: CertificateAuthoritiesService,
  ) {}

  /** Publishes a new CRL for the CA inside the caller's transaction (e.g. the revocation's). */
  async publish(m: EntityManager, ca: AuthorityRow): Promise<Buffer> {
    const crlNumber = await this.authorities.nextCrlNumber(m, ca);
    const revoked = await this.authorities.revokedBy(m, ca);
    const thisUpdate = new Date();
    const nextUpdate = new Date(thisUpdate.getTime() + CRL_LIFETIME_MS);
    const crl = await mapCertErrors(async () =>
      createCrl(await this.cas.load(ca), {
        crlNumber,
        thisUpdate,
        nextUpdate,
        entries: revoked.map((r) => ({ serialNumber: r.serial_number, revocationDate: r.revoked_at, reason: r.revoke_reason })),
      }),
    );
    await this.authorities.storeCrl(m, ca, crl.der, nextUpdate);
    return crl.der;
  }

  /** The DER CRL of the CA named by id or name (the public /crl/<ca>.crl route). */
  async current(ref: string): Promise<{ der: Buffer; name: string }> {
    const ca = await this.findPublic(ref);
    const fresh = await this.authorities.readFreshCrl(ca, new Date(Date.now() + DAY_MS));
    if (fresh) return { der: fresh, name: ca.name };
    const der = await this.dataSource.transaction(async (m) => {
      // Another instance may have re-issued it while this one waited for the row lock.
      await this.authorities.lock(m, ca);
      const renewed = await this.authorities.readFreshCrl(ca, new Date(Date.now() + DAY_MS), m);
      return renewed ?? this.publish(m, ca);
    });
    return { der, name: ca.name };
  }

  /** The CA certificate itself, PEM, for trust stores. */
  async caCertificate(ref: string): Promise<{ pem: string; name: string }> {
    const ca = await this.findPublic(ref);
    return { pem: ca.certificate_pem, name: ca.name };
  }

  private async findPublic(ref: string): Promise<AuthorityRow> {
    const { ca, ambiguous } = await this.authorities.findPublishedByRef(ref);
    if (ambiguous) throw AppError.notFound(`Several certificate authorities are named ${ref}; ask for /crl/<id>.crl or /ca/<id>.crt`);
    if (!ca) throw AppError.notFound(`No certificate authority ${ref}`);
    return ca;
  }
}
