import { EntityManager } from 'typeorm';
import { saveCertificate, saveEndpoint } from '../cert-store';
import { toPem } from '../certs';
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
 * the endpoint it was found on, and that endpoint's latest vulnerability scan.
 * Returns how many certificates were new.
 */
export async function storeEndpoints(m: EntityManager, orgId: number, createdByName: string, found: readonly FoundEndpoint[]): Promise<number> {
  let created = 0;
  for (const endpoint of found) {
    const [leaf, ...chain] = endpoint.chain.map((der) => toPem(der, 'CERTIFICATE'));
    const saved = await saveCertificate(m, { orgId, certPem: leaf!, chainPems: chain, source: 'discovered', createdByName });
    if (saved.created) created++;
    const endpointId = await saveEndpoint(m, { orgId, certificateId: saved.id, host: endpoint.host, port: endpoint.port, ip: endpoint.ip });
    await m.query(`UPDATE certificate_endpoints SET scan = $3 WHERE org_id = $1 AND id = $2`, [orgId, endpointId, endpoint.scan]);
  }
  return created;
}
