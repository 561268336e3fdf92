import { randomBytes } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { AuditOperation, AuditWriter } from '@app/audit';
import { Keyring } from '@app/crypto';
import { parseAllowedDomains } from '../acme';
import { resolveTemplate } from '../certs';

export const EAB_KEY_CONTEXT = 'acme_eab_keys.hmac_key';

export interface EabKeyRequest {
  orgId: number;
  caName: string;
  template?: string;
  createdBy: { id: number | null; username: string; ip?: string; client?: string };
}

export interface CreatedEabKey {
  keyId: string;
  /** base64url HMAC key: shown once, stored sealed. */
  hmacKey: string;
  caName: string;
  template: string;
  directoryPath: string;
}

/**
 * Creates an External Account Binding key tied to an organisation, a CA it may use and a
 * certificate profile. Shared by the HTTP operation and the admin command line.
 */
export async function createEabKey(m: EntityManager, keyring: Keyring, audit: AuditWriter, req: EabKeyRequest): Promise<CreatedEabKey> {
  const ca = await visibleCa(m, req.orgId, req.caName);
  const template = resolveTemplate(req.template?.trim() || undefined).name;
  const keyId = randomBytes(12).toString('base64url');
  const hmacKey = randomBytes(32);
  await m.query(`INSERT INTO acme_eab_keys (key_id, hmac_key, org_id, ca_id, template, created_by_name) VALUES ($1,$2,$3,$4,$5,$6)`, [
    keyId,
    keyring.seal(hmacKey, EAB_KEY_CONTEXT),
    req.orgId,
    ca.id,
    template,
    req.createdBy.username,
  ]);
  await audit.record(
    {
      category: 'Pki',
      operation: AuditOperation.AcmeEabKeyCreated,
      actor: { id: req.createdBy.id ?? 0, orgId: req.orgId, username: req.createdBy.username, ip: req.createdBy.ip ?? '', client: req.createdBy.client ?? '' },
      target: ca.name,
      description: `EAB key ${keyId} for CA ${ca.name}, profile ${template}`,
    },
    m,
  );
  // An organisation's CA by id, as in its CRL and OCSP URLs (names are unique per organisation only).
  return { keyId, hmacKey: hmacKey.toString('base64url'), caName: ca.name, template, directoryPath: `/acme/${ca.org_id === null ? encodeURIComponent(ca.name) : ca.id}/directory` };
}

/**
 * Sets the names an organisation may have certificates for from a CA (replacing its list):
 * for a server-wide CA the list signCSR and ACME check (set by the provider only, for any
 * organisation); for an organisation's own CA, the names its ACME server issues for.
 */
export async function setAllowedDomains(
  m: EntityManager,
  audit: AuditWriter,
  req: {
    /** The caller's organisation. */
    orgId: number;
    /** Whose list: the caller's organisation by default. */
    forOrg?: { id: number; name: string };
    caName: string;
    domains: string[];
    actor: { id: number | null; username: string; ip?: string; client?: string };
    /** The caller may change server-wide CAs (see mayManageServerWideCas); the operator's CLI may. */
    serverWide: boolean;
  },
): Promise<string[]> {
  const target = req.forOrg?.id ?? req.orgId;
  if (target !== req.orgId && !req.serverWide) {
    throw new EabError('Only a super administrator of the provider organisation may set the names of another organisation', 'forbidden');
  }
  const ca = await visibleCa(m, target, req.caName);
  if (ca.org_id === null && !req.serverWide) {
    throw new EabError(`Only a super administrator of the provider organisation may set the names ACME issues for with the built-in CA ${ca.name}`, 'forbidden');
  }
  let domains: string[];
  try {
    domains = parseAllowedDomains(req.domains);
  } catch (error) {
    throw new EabError((error as Error).message, 'invalid');
  }
  await m.query(
    `INSERT INTO ca_allowed_names (org_id, ca_id, names) VALUES ($1, $2, $3)
     ON CONFLICT (org_id, ca_id) DO UPDATE SET names = EXCLUDED.names, updated_at = now()`,
    [target, ca.id, domains],
  );
  const whose = req.forOrg && target !== req.orgId ? ` for organisation ${req.forOrg.name}` : '';
  await audit.record(
    {
      category: 'Pki',
      operation: AuditOperation.AcmeAllowedDomainsChanged,
      actor: { id: req.actor.id ?? 0, orgId: req.orgId, username: req.actor.username, ip: req.actor.ip ?? '', client: req.actor.client ?? '' },
      target: ca.name,
      description: (domains.length ? `allowed: ${domains.join(', ')}` : 'no names allowed') + whose,
    },
    m,
  );
  return domains;
}

/** A CA the organisation may use: one of its own or a server-wide one, never the internal service CA. */
async function visibleCa(m: EntityManager, orgId: number, name: string): Promise<{ id: number; org_id: number | null; name: string }> {
  const [ca] = await m.query(
    `SELECT id, org_id, name FROM certificate_authorities WHERE lower(name) = lower($1) AND (org_id IS NULL OR org_id = $2) AND NOT internal
     ORDER BY org_id NULLS LAST LIMIT 1`,
    [name.trim(), orgId],
  );
  if (!ca) throw new EabError(`Certificate authority "${name}" is not known`);
  return ca;
}

/** A refusal with a message for the operator (the HTTP layer maps it to Failed). */
export class EabError extends Error {
  constructor(
    message: string,
    readonly kind: 'not-found' | 'invalid' | 'forbidden' = 'not-found',
  ) {
    super(message);
  }
}
