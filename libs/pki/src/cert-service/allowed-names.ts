import * as x509 from '@peculiar/x509';
import { isIP } from 'node:net';
import { EntityManager } from 'typeorm';
import { AppError } from '@app/http';
import { canonicalIp, Identifier, isAllowed } from '../acme';
import { SanEntry } from '../certs';
import { isProviderOrganisation } from './server-wide-cas';

/** In a list: any name, for signCSR. ACME issues only names that another entry allows. */
export const ANY_NAME = '*';

/**
 * The names an organisation may have certificates for from a CA: its row in
 * ca_allowed_names, else for a server-wide CA `*` for the provider (the organisation that
 * installed the server keeps signing any name) and nothing for every other organisation.
 */
export async function allowedNamesFor(m: EntityManager, orgId: number, ca: { id: number; org_id: number | null }): Promise<string[]> {
  const [row] = await m.query('SELECT names FROM ca_allowed_names WHERE org_id = $1 AND ca_id = $2', [orgId, ca.id]);
  if (row) return row.names;
  return ca.org_id === null && (await isProviderOrganisation(m, orgId)) ? [ANY_NAME] : [];
}

/**
 * A certificate from a server-wide CA may name (every subject common name, every SAN) only
 * what the organisation's list allows; an organisation's own CA names anything for it.
 */
export async function refuseNamesNotAllowed(
  m: EntityManager,
  orgId: number,
  ca: { id: number; org_id: number | null; name: string },
  subjectDer: Buffer,
  sans: SanEntry[],
): Promise<void> {
  if (ca.org_id !== null) return;
  const allowed = await allowedNamesFor(m, orgId, ca);
  if (allowed.includes(ANY_NAME)) return;
  const attributes = subjectAttributes(subjectDer);
  // Systems that trust our root map client certificates by O, OU, email, UID...: none of
  // those reaches a certificate unless the organisation's list holds that exact attribute.
  const foreign = attributes.filter((a) => a.type !== 'CN' && !allowed.includes(subjectRule(a)));
  if (foreign.length > 0) {
    throw AppError.forbidden(
      `This organisation may not have the subject attribute${foreign.length > 1 ? 's' : ''} ${foreign.map(subjectRule).join(', ')} in a certificate from the server-wide CA ${ca.name}` +
        '; only a common name it may have, or an exact attribute its provider allows (such as O=Example Corp), is certified there',
    );
  }
  const commonNames = attributes.filter((a) => a.type === 'CN').map((a) => a.value);
  if (commonNames.length === 0 && sans.length === 0) {
    throw AppError.forbidden(`The request names nothing (no common name, no subject alternative name); the server-wide CA ${ca.name} certifies only names an organisation may have`);
  }
  const names = [...commonNames.map((value) => ({ type: 'cn', value })), ...sans];
  const refused = names.filter((name) => !nameAllowed(name, allowed)).map((name) => name.value);
  if (refused.length === 0) return;
  throw AppError.forbidden(
    `This organisation may not have certificates for ${[...new Set(refused)].join(', ')} from the server-wide CA ${ca.name}` +
      (allowed.length ? `; it may have: ${allowed.join(', ')}` : '; its provider has not set any names for it'),
  );
}

/** Every attribute of every RDN of a subject (multi-valued RDNs included), by short name or dotted OID. */
function subjectAttributes(subjectDer: Buffer): { type: string; value: string }[] {
  return new x509.Name(subjectDer)
    .toJSON()
    .flatMap((rdn) => Object.entries(rdn).flatMap(([type, values]) => values.map((value) => ({ type: ATTRIBUTE_NAMES[type] ?? type.toUpperCase(), value }))));
}

// Types the x509 library shows by OID, by the names people write in a list.
const ATTRIBUTE_NAMES: Record<string, string> = { '0.9.2342.19200300.100.1.1': 'UID', '2.5.4.5': 'SERIALNUMBER', '2.5.4.12': 'TITLE' };

/** How a list allows one exact subject attribute: `TYPE=value` (parseAllowedDomains keeps them). */
function subjectRule(a: { type: string; value: string }): string {
  return `${a.type}=${a.value}`;
}

/** A common name or SAN against the list: DNS names and addresses as ACME matches them; anything else only with `*`. */
function nameAllowed(name: { type: string; value: string }, allowed: string[]): boolean {
  const identifier = asIdentifier(name);
  return identifier !== undefined && isAllowed(identifier, allowed);
}

const DNS_NAME = /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

function asIdentifier(name: { type: string; value: string }): Identifier | undefined {
  if (name.type !== 'cn' && name.type !== 'dns' && name.type !== 'ip') return undefined;
  const ip = canonicalIp(name.value.trim());
  if (ip) return { type: 'ip', value: ip };
  if (name.type === 'ip' || isIP(name.value)) return undefined;
  const dns = name.value.trim().toLowerCase().replace(/\.$/, '');
  return DNS_NAME.test(dns) ? { type: 'dns', value: dns } : undefined;
}
