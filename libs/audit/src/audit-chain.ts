import { createHmac } from 'node:crypto';

/**
 * The keyed hash chain over audit rows: link(n) = HMAC-SHA256(key, link(n-1) || row n),
 * where row n includes the id of the row sealed before it. Pure; the sealer writes
 * links (into audit_seals), the verifier recomputes them.
 */

/**
 * The columns a link covers, selected as text so both sides see identical values. Select them
 * from `audit a` and order by `a.id`: a bare `id` would sort the text alias.
 */
export const CHAIN_COLUMNS = `id::text AS id, (extract(epoch FROM created_at) * 1000000)::bigint::text AS at,
  org_id::text AS org_id, category, operation, outcome, actor_id::text AS actor_id, actor_name, ip, client,
  resource_id::text AS resource_id, resource_name, account_id::text AS account_id, account_name, target,
  reason, ticket_id, request_id::text AS request_id, description`;

export interface ChainRow {
  id: string;
  at: string;
  org_id: string | null;
  category: string;
  operation: string;
  outcome: string;
  actor_id: string | null;
  actor_name: string;
  ip: string;
  client: string;
  resource_id: string | null;
  resource_name: string;
  account_id: string | null;
  account_name: string;
  target: string;
  reason: string;
  ticket_id: string;
  request_id: string | null;
  description: string;
}

export const CHAIN_KEY_CONTEXT = 'audit_chain.key';

export function genesisHash(key: Buffer): Buffer {
  return createHmac('sha256', key).update('audit-chain-genesis-v1').digest();
}

/** The link of `row`, sealed after the row whose id is `prevId` and whose link is `prevHash`. */
export function chainLink(key: Buffer, prevHash: Buffer, prevId: string, row: ChainRow): Buffer {
  return chainLinkOfPayload(key, prevHash, chainPayload(prevId, row));
}

/** The text a link hashes after the previous link: the row's fields as a JSON array. */
export function chainPayload(prevId: string, row: ChainRow): string {
  const fields = [
    row.id, prevId, row.at, row.org_id, row.category, row.operation, row.outcome, row.actor_id, row.actor_name,
    row.ip, row.client, row.resource_id, row.resource_name, row.account_id, row.account_name, row.target,
    row.reason, row.ticket_id, row.request_id, row.description,
  ];
  return JSON.stringify(fields);
}

export function chainLinkOfPayload(key: Buffer, prevHash: Buffer, payload: string): Buffer {
  return createHmac('sha256', key).update(prevHash).update(payload).digest();
}

export type ChainProblemKind = 'altered' | 'inserted' | 'removed';

export interface ChainProblem {
  kind: ChainProblemKind;
  /** The row concerned: the altered or inserted row, or the id of the removed one. */
  id: string;
  message: string;
}

export interface ChainReport {
  ok: boolean;
  /** Sealed rows checked before the first problem (or all of them). */
  checked: number;
  /** Id of the last sealed row (the head of the chain). */
  headId: string;
  /** Rows not sealed yet (newer than the head). */
  unsealed: number;
  problem?: ChainProblem;
}
