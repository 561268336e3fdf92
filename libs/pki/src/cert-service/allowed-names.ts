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
  const commonNames = new x509.Name(subjectDer).getField('CN');
  const names = [...commonNames.map((value) => ({ type: 'cn', value })), ...sans];
  const refused = names.filter((name) => !nameAllowed(name, allowed)).map((name) => name.value);
  if (refused.length === 0) return;
  throw AppError.forbidden(
    `This organisation may not have certificates for ${[...new Set(refused)].join(', ')} from the server-wide CA ${ca.name}` +
      (allowed.length ? `; it may have: ${allowed.join(', ')}` : '; its provider has not set any names for it'),
  );
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
