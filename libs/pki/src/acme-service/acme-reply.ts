/** What an ACME handler answers; the controller writes it with the nonce and index link. */
export interface AcmeReply {
  status: number;
  body?: unknown;
  /** Defaults to application/json when there is a body. */
  contentType?: string;
  location?: string;
  links?: string[];
}

export const ok = (body: unknown, extra: Partial<AcmeReply> = {}): AcmeReply => ({ status: 200, body, ...extra });
export const created = (body: unknown, location: string): AcmeReply => ({ status: 201, body, location });
