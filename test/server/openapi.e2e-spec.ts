import SwaggerParser from '@apidevtools/swagger-parser';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { startTestServices, TestServices } from '../support/app';
import { discoverRoutes } from '../auth/routes';

type Json = Record<string, any>;

/**
 * GET /openapi.json on both ports: a valid OpenAPI 3.1 document (checked by a real validator),
 * generated from the route metadata, so it lists exactly the routes the services answer. The
 * snapshot shows every operation with its name, permission, layout and input fields; after
 * changing routes or DTOs on purpose: `npx jest test/server/openapi -u`.
 */
describe('GET /openapi.json (OpenAPI 3.1)', () => {
  let s: TestServices;
  const docs: Record<string, Json> = {};

  beforeAll(async () => {
    s = await startTestServices();
    for (const [name, base] of [['vault', s.vaultUrl], ['pki', s.pkiUrl]] as const) {
      const res = await request(base).get('/openapi.json');
      expect(res.status).toBe(200);
      docs[name] = res.body;
    }
  });
  afterAll(() => s.close());

  it.each(['vault', 'pki'])('%s: is public and passes the OpenAPI 3.1 schema validation', async (name) => {
    const doc = docs[name];
    expect(doc.openapi).toBe('3.1.0');
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeDefined();
  });

  // A second, independent validator, the one Python tooling uses: its regex format check runs
  // Python's re, which refuses JavaScript-only patterns such as \p{L}.
  it.each(['vault', 'pki'])('%s: passes openapi-spec-validator', (name) => {
    const dir = mkdtempSync(join(tmpdir(), 'openapi-'));
    try {
      const file = join(dir, `${name}.json`);
      writeFileSync(file, JSON.stringify(docs[name]));
      expect(openapiSpecValidator(file)).toMatch(/OK/);
      const broken = structuredClone(docs[name]);
      broken.paths['/health'].get.responses = { '200': { description: 'x', content: { 'application/json': { schema: { type: 'string', pattern: '^\\p{L}+$' } } } } };
      writeFileSync(file, JSON.stringify(broken));
      expect(() => openapiSpecValidator(file)).toThrow(/is not a 'regex'/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the validator does refuse a broken document (it really checks)', async () => {
    const broken = structuredClone(docs.vault);
    broken.paths['/health'].get.responses = 'none';
    await expect(SwaggerParser.validate(broken as never)).rejects.toThrow(/validation failed/i);
  });

  it.each(['vault', 'pki'] as const)('%s: describes exactly the routes the service answers', (name) => {
    const described = Object.entries(docs[name].paths as Json).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ':$1')}`),
    );
    expect(described.sort()).toEqual(discoverRoutes(s[name]).map((r) => `${r.method} ${r.path}`).sort());
  });

  it('carries operation names, permissions, INPUT_DATA fields with types and required flags, and the layout', () => {
    const create = docs.vault.paths['/restapi/json/v1/resources'].post;
    expect(create).toMatchObject({ summary: 'CREATE RESOURCE', 'x-operation-name': 'CREATE RESOURCE', 'x-permission': 'resource.create', 'x-response-layout': 'vaultA' });
    const dto = docs.vault.components.schemas.CreateResourceDto;
    expect(dto.required).toEqual(['RESOURCENAME']);
    expect(dto.properties.RESOURCENAME).toEqual({ type: 'string', maxLength: 255 });
    expect(dto.properties.RESOURCECUSTOMFIELD).toEqual({ type: 'array' });
    const form = create.requestBody.content['application/x-www-form-urlencoded'].schema.properties.INPUT_DATA;
    expect(form.contentSchema.properties.operation.properties.Details).toEqual({ $ref: '#/components/schemas/CreateResourceDto' });
    const read = docs.vault.paths['/restapi/json/v1/resources/{rid}/accounts/{aid}/password'].get;
    expect(read.parameters.map((p: Json) => `${p.in}:${p.name}`)).toEqual(['path:rid', 'path:aid', 'header:orgName', 'query:INPUT_DATA']);
    expect(docs.vault.paths['/health'].get).toMatchObject({ security: [], 'x-permission': 'public' });
    const pkiList = docs.pki.paths['/api/pki/restapi/getAllSSLCertificates'].get;
    expect(pkiList).toMatchObject({ 'x-operation-name': 'GetAllSSLCertificates', 'x-permission': 'pki.read', 'x-response-layout': 'pki' });
    expect(pkiList.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Envelope_pki' });
    const subset = docs.vault.paths['/api/pki/restapi/getAllSSLCertificates'].get;
    expect(subset.responses['200'].content['application/json'].schema.allOf[1].properties).toHaveProperty('SSLCertificates');
    expect(docs.vault.paths['/metrics'].get['x-permission']).toBe('metrics.read');
    // Standard protocols carry their own operation names and media types, not an envelope.
    const newAccount = docs.pki.paths['/acme/{ca}/new-account'].post;
    expect(newAccount).toMatchObject({ 'x-operation-name': 'newAccount', 'x-permission': 'public', 'x-response-layout': 'acme' });
    expect(Object.keys(newAccount.responses['4XX'].content)).toEqual(['application/problem+json']);
    const ocsp = docs.pki.paths['/ocsp/{ca}'].post;
    expect(ocsp).toMatchObject({ 'x-operation-name': 'OCSPRequest', 'x-response-layout': 'ocsp' });
    expect(Object.keys(ocsp.responses['200'].content)).toEqual(['application/ocsp-response']);
  });

  it.each(['vault', 'pki'] as const)('%s: operation snapshot', (name) => {
    const lines: string[] = [];
    const schemas = docs[name].components.schemas as Json;
    for (const [path, ops] of Object.entries(docs[name].paths as Json)) {
      for (const [method, op] of Object.entries(ops as Json)) {
        const ref: string | undefined = (op.parameters ?? []).find((p: Json) => p.name === 'INPUT_DATA')?.content['application/json'].schema.properties.operation.properties.Details.$ref;
        const dto = ref ? schemas[ref.split('/').pop()!] : undefined;
        const fields = dto ? Object.entries(dto.properties as Json).map(([f, sc]) => `${f}${(dto.required ?? []).includes(f) ? '*' : ''}:${[sc.type].flat().join('|') || 'any'}`) : [];
        lines.push(`${method.toUpperCase().padEnd(6)} ${path} ${op.summary} [${op['x-permission']}, ${op['x-response-layout']}]${fields.length ? ` ${fields.join(' ')}` : ''}`);
      }
    }
    expect(lines).toMatchSnapshot();
  });
});

/** openapi-spec-validator (Python): Debian's python3-openapi-spec-validator, or a pip one on PATH. */
function openapiSpecValidator(file: string): string {
  let lastError: unknown;
  for (const python of ['python3', '/usr/bin/python3']) {
    try {
      return execFileSync(python, ['-m', 'openapi_spec_validator', file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (error) {
      const e = error as { stdout?: string; stderr?: string; code?: string };
      if (/No module named/.test(e.stderr ?? '') || e.code === 'ENOENT') {
        lastError = error;
        continue;
      }
      throw new Error(`${e.stdout ?? ''}${e.stderr ?? ''}`);
    }
  }
  throw lastError;
}
