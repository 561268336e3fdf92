import { Layout, Protocol } from '@app/http';
import { CatalogRoute } from '@app/http';
import { dtoSchema, Schema } from './dto-schema';

export interface DocumentInput {
  service: 'vault' | 'pki';
  version: string;
  defaultLayout: Layout;
  routes: CatalogRoute[];
}

const TITLES = { vault: 'Credential Vault: vault service (port 7272)', pki: 'Credential Vault: key & certificate manager (port 6565)' };

/**
 * The OpenAPI 3.1 description of one service, generated from the route metadata that runs it:
 * operation names, methods, paths, permissions, the INPUT_DATA DTOs and the response layout.
 */
export function openApiDocument(input: DocumentInput): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const schemas: Record<string, Schema> = { ...ENVELOPES };
  const used = new Set<string>();
  for (const route of input.routes) {
    const path = route.path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
    const operation = operationObject(route, input, schemas, used);
    (paths[path] ??= {})[route.method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: TITLES[input.service],
      version: input.version,
      description:
        'Generated from the route metadata. Every operation answers HTTP 200 with its envelope, status Success or Failed ' +
        '(docs/api/vault.md, "Envelopes"); 500 only for server faults, with an error id. INPUT_DATA is JSON `{"operation":{"Details":{...}}}`, ' +
        'sent in the query string or as a form field; field names match exactly first, then in any case.',
    },
    paths,
    components: {
      schemas,
      securitySchemes: {
        AUTHTOKEN: { type: 'apiKey', in: 'header', name: 'AUTHTOKEN' },
        AUTHTOKEN_query: { type: 'apiKey', in: 'query', name: 'AUTHTOKEN' },
      },
    },
  };
}

function operationObject(route: CatalogRoute, input: DocumentInput, schemas: Record<string, Schema>, used: Set<string>): Record<string, unknown> {
  const layout = route.layout ?? input.defaultLayout;
  const name = route.operation?.name;
  const protocol = route.protocol;
  const op: Record<string, unknown> = {
    operationId: uniqueId(`${route.controller.name.replace(/Controller$/, '')}_${route.handler.name}`, used),
    summary: name ?? (protocol ? `${PROTOCOLS[protocol.protocol].title} ${protocol.name}` : `${route.method} ${route.path}`),
    'x-operation-name': name ?? protocol?.name ?? null,
    'x-permission': route.isPublic ? 'public' : (route.permission ?? null),
    'x-response-layout': name ? layout : (protocol?.protocol ?? 'none'),
    security: route.isPublic ? [] : [{ AUTHTOKEN: [] }, { AUTHTOKEN_query: [] }],
  };
  const parameters: Record<string, unknown>[] = [...route.path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  if (input.service === 'vault' && name && !route.isPublic) parameters.push(ORG_NAME);
  let inputRef: Schema | undefined;
  if (route.input) {
    schemas[route.input.name] ??= dtoSchema(route.input);
    inputRef = { $ref: `#/components/schemas/${route.input.name}` };
    const inputData = { type: 'object', properties: { operation: { type: 'object', properties: { Details: inputRef }, required: ['Details'] } }, required: ['operation'] };
    parameters.push({ name: 'INPUT_DATA', in: 'query', required: false, description: 'The input, when not sent in the body', content: { 'application/json': { schema: inputData } } });
    if (route.method !== 'GET' || route.uploads.length) {
      const form: Schema = {
        type: 'object',
        properties: { INPUT_DATA: { type: 'string', contentMediaType: 'application/json', contentSchema: inputData } } as Record<string, unknown>,
      };
      const multipart: Schema = { type: 'object', properties: { ...(form.properties as object) } };
      for (const part of route.uploads) (multipart.properties as Record<string, unknown>)[part] = { type: 'string', contentMediaType: 'application/octet-stream' };
      op.requestBody = {
        required: false,
        content: { 'application/x-www-form-urlencoded': { schema: form }, 'multipart/form-data': { schema: multipart } },
      };
    }
  }
  if (parameters.length) op.parameters = parameters;
  if (protocol) {
    op.responses = PROTOCOLS[protocol.protocol].responses;
    return op;
  }
  op.responses = {
    '200': {
      description: name ? `The ${layout} envelope named ${name}` : 'The answer',
      content: { 'application/json': { schema: name ? responseSchema(layout, route.operation?.detailsKey) : {} } },
    },
    '500': { description: 'A server fault: the envelope with an error id that is in the log' },
  };
  return op;
}

// PAM360's header, honoured on every vault operation (actorInOrg).
const ORG_NAME = {
  name: 'orgName',
  in: 'header',
  required: false,
  description: "The organisation to act in, by name; by default the caller's own. Only a super administrator of the first (provider) organisation may name another.",
  schema: { type: 'string' },
};

// Routes of standard protocols answer in their own media types, not an envelope.
const PROTOCOLS: Record<Protocol, { title: string; responses: Record<string, unknown> }> = {
  acme: {
    title: 'ACME (RFC 8555)',
    responses: {
      '2XX': { description: 'The ACME resource (application/json, or application/pem-certificate-chain for a certificate), with a Replay-Nonce' },
      '4XX': { description: 'An RFC 8555 problem document (application/problem+json), with a Replay-Nonce', content: { 'application/problem+json': { schema: { type: 'object', properties: { type: { type: 'string' }, detail: { type: 'string' }, status: { type: 'integer' } }, required: ['type'] } } } },
    },
  },
  ocsp: {
    title: 'OCSP (RFC 6960)',
    responses: {
      '200': { description: 'A DER OCSPResponse, malformedRequest or unauthorized included', content: { 'application/ocsp-response': { schema: { type: 'string', contentMediaType: 'application/ocsp-response' } } } },
    },
  },
};

function responseSchema(layout: Layout, detailsKey?: string): Schema {
  const ref = { $ref: `#/components/schemas/Envelope_${layout}` };
  if (layout === 'vaultB' && detailsKey) return { allOf: [ref, { type: 'object', properties: { [detailsKey]: {} } }] };
  return ref;
}

function uniqueId(base: string, used: Set<string>): string {
  let id = base;
  for (let i = 2; used.has(id); i++) id = `${base}_${i}`;
  used.add(id);
  return id;
}

const RESULT = {
  type: 'object',
  properties: { status: { type: 'string', description: 'Success or Failed (SUCCESS where the spec says so)' }, message: { type: 'string' } },
};
const CAPITAL_RESULT = { type: 'object', properties: { Status: { type: 'string' }, Message: { type: 'string' } } };

// The three layouts of docs/api/vault.md, "Envelopes".
const ENVELOPES: Record<string, Schema> = {
  Envelope_vaultA: {
    type: 'object',
    description: 'Vault prefix A: a list with no entries omits Details and keeps totalRows 0',
    properties: {
      operation: {
        type: 'object',
        properties: { name: { type: 'string' }, result: RESULT, Details: {}, totalRows: { type: 'integer' } },
        required: ['name', 'result'],
      },
    },
    required: ['operation'],
  },
  Envelope_vaultB: {
    type: 'object',
    description: 'Vault prefix B: the list or object under the key the operation names (SSHKeys, SSLCertificates, endpoint...)',
    properties: { name: { type: 'string' }, result: RESULT, totalRows: { type: 'integer' } },
    required: ['name', 'result'],
  },
  Envelope_pki: {
    type: 'object',
    description: 'Key manager: lower-case details; capitalised Status/Message inside result where the spec says so',
    properties: { name: { type: 'string' }, result: { anyOf: [RESULT, CAPITAL_RESULT] }, details: {}, totalRows: { type: 'integer' } },
    required: ['name', 'result'],
  },
};
