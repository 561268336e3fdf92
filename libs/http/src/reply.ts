import { attachmentDisposition } from './content-disposition';

/** What a handler returns; the interceptor wraps it in the layout's envelope. */
export interface Reply {
  message: string;
  details?: unknown;
  /** Lists: defaults to the list's length. */
  totalRows?: number;
  /** Extra top-level keys (vault prefix B, pki). */
  extra?: Record<string, unknown>;
  status?: string;
}

export function reply(message: string, details?: unknown, extra?: Record<string, unknown>): Reply {
  return { message, details, extra };
}

/**
 * A list already rendered as a JSON array (copyJsonObjects in libs/persistence), for lists of
 * many rows: the envelope is written around its bytes instead of stringifying objects.
 */
export class RenderedList {
  constructor(
    readonly json: Buffer,
    readonly length: number,
  ) {}
}

export function listReply(message: string, items: unknown[], totalRows = items.length): Reply {
  return { message, details: items, totalRows };
}

/**
 * A download: the file itself, not an envelope. Its headers are made here, where the service
 * builds the answer (inside the gate's release, before the audit commits), and cannot fail later.
 */
export class FileReply {
  readonly disposition: string;

  constructor(
    readonly body: Buffer,
    readonly fileName: string,
    readonly contentType = 'application/octet-stream',
  ) {
    this.disposition = attachmentDisposition(fileName);
  }
}

/** A plain-text answer (revoke; /metrics, whose refusals carry their HTTP status for scrapers). */
export class TextReply {
  constructor(
    readonly text: string,
    readonly httpStatus = 200,
  ) {}
}

/** A plain JSON body with its own HTTP status, no envelope (/health, which load balancers read by status). */
export class JsonReply {
  constructor(
    readonly body: Record<string, unknown>,
    readonly httpStatus = 200,
  ) {}
}

/**
 * A web console page (or, with 303 and a Location header, a redirect after a form): HTML with
 * its own HTTP status and headers (cookies, security headers), no envelope.
 */
export class HtmlReply {
  constructor(
    readonly html: string,
    readonly httpStatus = 200,
    readonly headers: Record<string, string | string[]> = {},
    /** The console's style sheet, script and downloads are served the same way. */
    readonly contentType = 'text/html; charset=utf-8',
  ) {}

  static redirect(location: string, headers: Record<string, string | string[]> = {}): HtmlReply {
    return new HtmlReply('', 303, { ...headers, Location: location });
  }
}
