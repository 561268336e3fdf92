import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { startTestServices, TestServices } from '../support/app';
import { DocExample, docExamples, shellWords } from './doc-examples';

const DOCS = join(__dirname, '..', '..', 'docs', 'api');

// Messages of the input checks: an example that draws one is wrong, whatever the objects it names.
const INPUT_REFUSAL = /\b(is required|must be one of|must be text|must be a whole number|must be at least|must be at most|must be true or false|must not be empty|is not valid JSON)\b/;
// Host names of the examples are placeholders: every packet of a test stays on loopback.
const HOST_FIELDS = new Set(['resourceName', 'DNSNAME', 'HOST', 'HOSTNAME', 'hostName']);

function loopbackOnly(inputData: string): string {
  const parsed = JSON.parse(inputData);
  const details = parsed?.operation?.Details ?? {};
  for (const key of Object.keys(details)) {
    if (HOST_FIELDS.has(key) && typeof details[key] === 'string' && /\.example\.(com|test)$/.test(details[key])) details[key] = 'localhost';
  }
  return JSON.stringify(parsed);
}

/** The envelope's parts whatever the layout (vault prefix A, prefix B, pki). */
function envelope(body: Record<string, any>): { name?: string; status?: string; message?: string; details?: unknown } {
  const op = body.operation ?? body;
  const result = op.result ?? {};
  const { name, result: _r, totalRows: _t, details, Details, ...rest } = op;
  return { name, status: result.status ?? result.Status, message: result.message ?? result.Message, details: Details ?? details ?? rest };
}

/**
 * Issue 39: every curl example of docs/api/*.md, run in document order against one fresh
 * server as the first administrator. Examples name placeholder objects (resource 12, web.example.com),
 * so an answer may be "no such ..."; but none may be refused for its input, none may answer under
 * another operation name than its section documents, and a successful one carries the Details
 * keys its Answer line promises.
 */
describe.each(['vault', 'pki'] as const)('docs/api/%s.md examples against the server', (doc) => {
  const examples = docExamples(readFileSync(join(DOCS, `${doc}.md`), 'utf8'));
  let s: TestServices;
  beforeAll(async () => {
    s = await startTestServices();
  });
  afterAll(() => s?.close());

  it('parses the examples the way a shell does', () => {
    expect(shellWords(`curl -s -H "AUTHTOKEN: $TOKEN" $VAULT/x \\ --data-urlencode 'INPUT_DATA={"a":"b c"}'   # note`)).toEqual([
      'curl', '-s', '-H', 'AUTHTOKEN: $TOKEN', '$VAULT/x', ' --data-urlencode', 'INPUT_DATA={"a":"b c"}',
    ]);
    expect(examples.length).toBeGreaterThan(40);
  });

  const run = async (e: DocExample) => {
    const base = e.service === 'vault' ? s.vaultUrl : s.pkiUrl;
    const path = e.path.replace(/\/AUTHTOKEN=[^/]*$/, '');
    let req = (request(base) as any)[e.method.toLowerCase()](path).set('AUTHTOKEN', s.adminToken).query(e.query);
    const input = e.inputData === undefined ? undefined : loopbackOnly(e.inputData);
    if (e.multipart) {
      if (input !== undefined) req = req.field('INPUT_DATA', input);
      for (const part of e.files) req = req.attach(part, Buffer.from('placeholder file of the documentation example\n'), `${part}.bin`);
    } else if (input !== undefined) {
      req = e.method === 'GET' || e.method === 'DELETE' ? req.query({ INPUT_DATA: input }) : req.type('form').send({ INPUT_DATA: input });
    }
    return req;
  };

  it('each example is accepted as written and answered under its documented operation', async () => {
    const problems = new Set<string>();
    // Twice: the second pass finds what the first made (a list documented before the operation that fills it).
    for (const e of [...examples, ...examples]) {
      const res = await run(e);
      const label = `${e.heading} (${e.method} ${e.path})`;
      if (!String(res.headers['content-type'] ?? '').includes('json')) continue;
      const answer = envelope(res.body);
      if (answer.status === 'Failed' && INPUT_REFUSAL.test(answer.message ?? '')) problems.add(`${label}: input refused: ${answer.message}`);
      if (e.operation && answer.name && answer.name !== e.operation) problems.add(`${label}: answered as ${answer.name}, documented as ${e.operation}`);
      if (answer.status && /^success$/i.test(answer.status) && e.detailKeys.length) {
        const details = Array.isArray(answer.details) ? answer.details[0] : answer.details;
        // An empty list (nothing made yet in document order) says nothing about its entries.
        const shown = details && typeof details === 'object' && Object.keys(details).length > 0;
        const missing = e.detailKeys.filter((k) => shown && !(k in (details as object)));
        if (missing.length) problems.add(`${label}: Details lacks ${missing.join(', ')} (has ${Object.keys(details as object).join(', ')})`);
      }
    }
    expect([...problems]).toEqual([]);
  }, 300_000);
});
