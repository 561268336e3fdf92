import { discoverRoutes } from '../auth/routes';
import { startTestServices, TestServices } from '../support/app';
import { apiDoc, documentedOperations, operationKey } from './api-reference';

/**
 * docs/api/vault.md and docs/api/pki.md cannot drift from the router: every route of the
 * route catalogue has its `### METHOD /path` section in its service's file, and every such
 * section names a route. A new route is documented in the commit that adds it.
 */
describe('API reference (docs/api) against the route catalogue', () => {
  let s: TestServices;
  beforeAll(async () => {
    s = await startTestServices();
  });
  afterAll(() => s.close());

  it.each(['vault', 'pki'] as const)('%s: every route is documented and every documented operation is a route', (service) => {
    const routes = discoverRoutes(s[service]).map((r) => operationKey(r.method, r.path));
    const documented = documentedOperations(apiDoc(service));
    expect({ undocumented: routes.filter((r) => !documented.includes(r)) }).toEqual({ undocumented: [] });
    expect({ withoutRoute: documented.filter((d) => !routes.includes(d)) }).toEqual({ withoutRoute: [] });
    // One section per operation: two would let one of them go stale.
    expect(documented.filter((d, i) => documented.indexOf(d) !== i)).toEqual([]);
  });

  it('reads headings the way the reference describes them (and ignores code blocks)', () => {
    const text = ['### GET /a/{id}', '```sh', '### POST /in/code', '```', '### Sharing', '### PUT /b/{x}/c/', '#### GET /not/an/operation'].join('\n');
    expect(documentedOperations(text)).toEqual(['GET /a/:_', 'PUT /b/:_/c']);
    expect(operationKey('GET', '/ocsp/:ca/*request')).toBe(operationKey('GET', '/ocsp/{ca}/*request'));
  });
});
