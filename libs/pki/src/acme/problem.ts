/** RFC 8555 §6.7 error types (urn:ietf:params:acme:error:<type>). */
export type ProblemType =
  | 'accountDoesNotExist'
  | 'alreadyRevoked'
  | 'badCSR'
  | 'badNonce'
  | 'badPublicKey'
  | 'badRevocationReason'
  | 'badSignatureAlgorithm'
  | 'connection'
  | 'dns'
  | 'externalAccountRequired'
  | 'incorrectResponse'
  | 'malformed'
  | 'orderNotReady'
  | 'rejectedIdentifier'
  | 'serverInternal'
  | 'tls'
  | 'unauthorized'
  | 'unsupportedIdentifier'
  | 'unsupportedContact';

const STATUS: Partial<Record<ProblemType, number>> = {
  accountDoesNotExist: 400,
  orderNotReady: 403,
  unauthorized: 403,
  serverInternal: 500,
};

export interface ProblemDocument {
  type: string;
  detail: string;
  status: number;
  identifier?: { type: string; value: string };
  subproblems?: ProblemDocument[];
}

/** An ACME error, answered as an application/problem+json document. */
export class AcmeProblem extends Error {
  constructor(
    readonly type: ProblemType,
    readonly detail: string,
    readonly status: number = STATUS[type] ?? 400,
    readonly identifier?: { type: string; value: string },
  ) {
    super(detail);
  }

  toDocument(): ProblemDocument {
    return {
      type: `urn:ietf:params:acme:error:${this.type}`,
      detail: this.detail,
      status: this.status,
      ...(this.identifier ? { identifier: this.identifier } : {}),
    };
  }
}

export const malformed = (detail: string) => new AcmeProblem('malformed', detail);
export const unauthorized = (detail: string) => new AcmeProblem('unauthorized', detail);
export const notFound = (what: string) => new AcmeProblem('malformed', `No such ${what}`, 404);
