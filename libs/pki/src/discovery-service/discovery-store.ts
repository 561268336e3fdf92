import { EntityManager } from 'typeorm';
import { saveCertificate, saveEndpoint } from '../cert-store';
import { certificateDetails, toPem } from '../certs';
import type { VulnerabilityRecord } from '../discovery';

export interface FoundEndpoint {
  host: string;
  port: number;
  ip: string;
  /** DER, leaf first, as presented. */
  chain: Buffer[];
  scan: VulnerabilityRecord;
}

/**
 * Adds or refreshes each leaf certificate (with the presented chain) in the inventory,
 * the endpoint it was found on, and that endpoint's latest vulnerability scan. A certificate
 * deleted with exclude_certificate (certificate_exclusions) is not brought back.
 * Returns how many certificates were new and how many were passed over as excluded.
 */
export async function storeEndpoints(
  m: EntityManager,
  orgId: number,
  createdByName: string,
  found: readonly FoundEndpoint[],
): Promise<{ created: number; excluded: number }> {
  const exclusions = new Set<string>(
    (await m.query('SELECT fingerprint FROM certificate_exclusions WHERE org_id = $1', [orgId])).map((r: { fingerprint: string }) => r.fingerprint),
  );
  let created = 0;
  let excluded = 0;
  for (const endpoint of found) {
    const [leaf, ...chain] = endpoint.chain.map((der) => toPem(der, 'CERTIFICATE'));
    if (exclusions.size > 0 && exclusions.has(certificateDetails(leaf!).fingerprintSha256)) {
      excluded++;
      continue;
    }
    const saved = await saveCertificate(m, { orgId, certPem: leaf!, chainPems: chain, source: 'discovered', createdByName });
    if (saved.created) created++;
    const endpointId = await saveEndpoint(m, { orgId, certificateId: saved.id, host: endpoint.host, port: endpoint.port, ip: endpoint.ip });
    await m.query(`UPDATE certificate_endpoints SET scan = $3 WHERE org_id = $1 AND id = $2`, [orgId, endpointId, endpoint.scan]);
  }
  return { created, excluded };
}
