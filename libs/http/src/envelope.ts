import { randomUUID } from 'node:crypto';
import { Layout, OperationOptions } from './operation.decorator';
import { RenderedList, Reply } from './reply';

export interface EnvelopeInput extends OperationOptions {
  layout: Layout;
  name: string;
  status: string;
  reply: Reply;
}

/** Builds the three response layouts of docs/api/vault.md, "Envelopes". Pure, unit-tested. */
export function buildEnvelope(input: EnvelopeInput): Record<string, unknown> {
  const { layout, name, status, reply, detailsKey, capitalResult } = input;
  const isList = Array.isArray(reply.details) || reply.details instanceof RenderedList;
  const listLength = isList ? (reply.details as { length: number }).length : 0;
  const totalRows = reply.totalRows ?? (isList ? listLength : undefined);
  const result = capitalResult ? { Status: status, Message: reply.message } : { status, message: reply.message };

  if (layout === 'vaultA') {
    const operation: Record<string, unknown> = { name, result };
    // A list with no entries omits Details and keeps totalRows 0.
    if (reply.details !== undefined && !(isList && listLength === 0)) {
      operation.Details = reply.details;
    }
    if (totalRows !== undefined) operation.totalRows = totalRows;
    Object.assign(operation, reply.extra);
    return { operation };
  }

  const body: Record<string, unknown> = { name, result };
  if (totalRows !== undefined) body.totalRows = totalRows;
  if (reply.details !== undefined) {
    if (layout === 'pki') body.details = reply.details;
    else if (detailsKey) body[detailsKey] = reply.details;
    else if (isObject(reply.details)) Object.assign(body, reply.details);
    else body.details = reply.details;
  }
  Object.assign(body, reply.extra);
  return body;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// Stands for a RenderedList while the rest of the envelope is stringified; random, so no text
// of an answer can be mistaken for it.
const RENDERED = `rendered-list-${randomUUID()}`;

/** The envelope as UTF-8 JSON, a RenderedList in it written as its own bytes. */
export function envelopeBytes(envelope: Record<string, unknown>): Buffer {
  let rendered: RenderedList | undefined;
  const text = JSON.stringify(envelope, (_key, value: unknown) => {
    if (!(value instanceof RenderedList)) return value;
    rendered = value;
    return RENDERED;
  });
  if (!rendered) return Buffer.from(text);
  const [head, tail] = text.split(JSON.stringify(RENDERED));
  return Buffer.concat([Buffer.from(head), rendered.json, Buffer.from(tail)]);
}
