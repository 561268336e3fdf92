import { applyDecorators, SetMetadata } from '@nestjs/common';

/** Which response layout a controller speaks (docs/api/vault.md, "Envelopes"). */
export type Layout = 'vaultA' | 'vaultB' | 'pki';

export interface OperationOptions {
  /** Vault prefix B: the top-level key that carries the list or object (SSHKeys, endpoint...). */
  detailsKey?: string;
  /** Status text on success where the spec says SUCCESS instead of Success. */
  successText?: string;
  /** Capitalised Status/Message inside result (pki key vault, add certificate...). */
  capitalResult?: boolean;
}

export const OPERATION = 'api:operation';
export const LAYOUT = 'api:layout';
export const PERMISSION = 'api:permission';
export const PUBLIC = 'api:public';

export interface OperationMeta extends OperationOptions {
  name: string;
}

/**
 * Names the operation (part of the wire contract) and the permission it needs.
 * Routes are denied unless they declare a permission or are @Public().
 */
export function Operation(name: string, permission: string, options: OperationOptions = {}) {
  return applyDecorators(
    SetMetadata(OPERATION, { name, ...options } satisfies OperationMeta),
    SetMetadata(PERMISSION, permission),
  );
}

export const ApiLayout = (layout: Layout) => SetMetadata(LAYOUT, layout);

/**
 * A standard protocol a route speaks instead of an envelope: its own media types and its own
 * errors (ACME: RFC 8555 problem documents with a fresh nonce; OCSP: RFC 6960 DER responses).
 */
export type Protocol = 'acme' | 'ocsp';
export const PROTOCOL = 'api:protocol';

export interface ProtocolMeta {
  protocol: Protocol;
  /** The operation's name in its standard (newAccount, finalize...), for the API document and metrics. */
  name: string;
}

/** Declares a route of a standard protocol (public: such protocols authenticate in their own way). */
export const ProtocolOperation = (protocol: Protocol, name: string) => SetMetadata(PROTOCOL, { protocol, name } satisfies ProtocolMeta);

/** Opts a route out of authentication (health, CRLs). */
export const Public = () => SetMetadata(PUBLIC, true);
