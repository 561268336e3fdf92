import { certificateDetails, CertificateDetails, readCertificatePems, revocationReasonName } from '../certs';
import { certListDate, certTime } from './cert-format';
import { CertificateRow, EndpointRow, ListEntryRow } from './certificate.repository';
import { FieldEntry } from './additional-fields.repository';

/** A certificate with where it was found and its parsed chain: what getCertificateDetails shows. */
export interface CertificateView {
  row: CertificateRow;
  endpoints: EndpointRow[];
  details: CertificateDetails;
  chain: CertificateDetails[];
  /** Values of the additional fields an administrator defined (KMP). */
  fields: FieldEntry[];
}

export function certificateView(row: CertificateRow, endpoints: EndpointRow[], fields: FieldEntry[] = []): CertificateView {
  const chain = row.chain_pem ? readCertificatePems(row.chain_pem).map((pem) => certificateDetails(pem)) : [];
  return { row, endpoints, details: certificateDetails(row.certificate_pem), chain, fields };
}

// Our own certificates were never seen on a host: the common name on the TLS port stands in.
const DEFAULT_PORT = 443;

/** vault prefix B `endpoint` (op 34). */
export function endpointRecord(view: CertificateView): Record<string, unknown> {
  const { row, details } = view;
  const at = view.endpoints[0];
  return {
    // Where it was found; else the host name set by updateSSLCertificateDetails; else the common name.
    hostName: at?.host ?? (row.dns_name || row.common_name),
    port: at?.port ?? DEFAULT_PORT,
    expiry_date: certTime(row.not_after),
    from_date: certTime(row.not_before),
    certSignAlg: row.signature_algorithm,
    Sans: details.sans.join(', '),
    serial: row.serial_number,
    fingerPrint: row.fingerprint,
    keyalg: row.key_algorithm,
    PublicKeyLength: row.key_length,
    PrivateKey: row.has_key,
  };
}

/** pki certificate details record (docs/api/pki.md). */
export function detailsRecord(view: CertificateView): Record<string, unknown> {
  const { row, details } = view;
  const endpoint = endpointRecord(view);
  return {
    certtype: details.selfSigned ? 'Self-Signed' : 'CA-Signed',
    certificateTemplate: row.template,
    // KMP's samples call the cloud flag isAWS; pki-api.md isCLOUDHOST. Both, false: we do not know of a cloud host.
    endpoint: { ...endpoint, port: String(endpoint.port), isCLOUDHOST: false, isAWS: false },
    isCertInstalledMulipleServers: view.endpoints.length > 1,
    issuer: nameOf(details.issuer),
    issuedto: nameOf(details.subject),
    intermediate: { certificates: view.chain.map(chainEntry) },
    ipaddress: view.endpoints[0]?.ip ?? '',
    CertificateId: String(row.id),
    revoked: row.revoked_at !== null,
    revokeReason: row.revoke_reason === null ? '' : revocationReasonName(row.revoke_reason),
    vulnerabilities: view.endpoints.filter((e) => e.scan).map(vulnerabilityEntry),
    Description: row.description,
    isAutoDeploy: row.auto_deploy,
    'Expiry Notification Email': row.notification_email,
    sslAdditionalFieldData: view.fields,
  };
}

/** What the last scan found where the certificate was discovered, with the spec's names. */
function vulnerabilityEntry(endpoint: EndpointRow): Record<string, unknown> {
  const scan = endpoint.scan as Partial<Record<string, unknown>>;
  return {
    hostName: endpoint.host,
    port: String(endpoint.port),
    ipaddress: endpoint.ip,
    'Weak Cipher Suites': scan.weakCiphers ?? [],
    'Poodle SSL': scan.poodle === true,
    'SSLv3 Enabled': scan.sslv3 === true,
    'No TLS1.2': scan.noTls12 === true,
    Heartbleed: scan.heartbleed === true,
    Revoked: scan.revoked ?? null,
    protocols: scan.protocols ?? {},
    checkedAt: scan.checkedAt ?? null,
  };
}

/**
 * Certificate list entry (pki op 20, vault op 32). The lists give dates as the original does
 * (`Aug 27, 2022`) and the serial, so a client can pick an entry and ask for it by serial.
 */
export function listEntry(row: ListEntryRow, fields: FieldEntry[] = []): Record<string, unknown> {
  return {
    CertID: row.id,
    'DNS Name/FQDN': row.host ?? (row.dns_name || row.common_name),
    Port: row.port ?? DEFAULT_PORT,
    'Common Name': row.common_name,
    Issuer: issuerName(row.issuer),
    FromDate: certListDate(row.not_before),
    ExpiryDate: certListDate(row.not_after),
    serialNumber: row.serial_number,
    KeyStrength: String(row.key_length),
    SignatureAlgorithm: row.signature_algorithm,
    'Created By': row.created_by_name,
    'Expiry Notification Email': row.notification_email,
    Description: row.description,
    sslAdditionalFieldData: fields,
  };
}

export function expiryEntry(row: { common_name: string; serial_number: string; not_after: Date }): Record<string, unknown> {
  return { 'Common Name': row.common_name, ExpiryDate: certListDate(row.not_after), serialNumber: row.serial_number };
}

function nameOf(name: { cname: string; org: string; orgunit: string }) {
  return { cname: name.cname, org: name.org, orgunit: name.orgunit };
}

function chainEntry(d: CertificateDetails) {
  return { ...nameOf(d.subject), serial: d.serialNumber, expiry_date: certTime(d.notAfter), fingerPrint: d.fingerprintSha256 };
}

/** The issuer's common name, else its whole DN. */
function issuerName(dn: string): string {
  const cn = /(?:^|,\s*)CN=((?:\\.|[^,])*)/.exec(dn);
  return cn ? cn[1].replace(/\\(.)/g, '$1') : dn;
}
