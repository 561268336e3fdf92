import { Layout, OperationOptions } from './operation.decorator';
import { Reply } from './reply';

export interface EnvelopeInput extends OperationOptions {
  layout: Layout;
  name: string;
  status: string;
  reply: Reply;
}

/** Builds the three response layouts of docs/api/vault.md, "Envelopes". Pure, unit-tested. */
export function buildEnvelope(input: EnvelopeInput): Record<string, unknown> {
  const { layout, name, status, reply, detailsKey, capitalResult } = input;
  const isList = Array.isArray(reply.details);
  const totalRows = reply.totalRows ?? (isList ? (reply.details as unknown[]).length : undefined);
  const result = capitalResult ? { Status: status, Message: reply.message } : { status, message: reply.message };

  if (layout === 'vaultA') {
    const operation: Record<string, unknown> = { name, result };
    // A list with no entries omits Details and keeps totalRows 0.
    if (reply.details !== undefined && !(isList && (reply.details as unknown[]).length === 0)) {
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
