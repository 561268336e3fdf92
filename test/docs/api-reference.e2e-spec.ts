import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { RequestMethod, type Type } from '@nestjs/common';
import { certificateOperations, PKI_PRESENTATION, VAULT_PRESENTATION } from '@app/pki/cert-service';
import { discoveryOperations, PKI_DISCOVERY_PRESENTATION, VAULT_DISCOVERY_PRESENTATION } from '@app/pki/discovery-service';
import { PKI_SSH_PRESENTATION, sshKeyOperations, VAULT_SSH_PRESENTATION } from '@app/ssh/service';
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

  // The operations both ports serve are declared once; each is documented for both: in
  // docs/api/pki.md for 6565 and in docs/api/vault.md (prefix B) for 7272.
  it.each([
    ['certificates', certificateOperations(PKI_PRESENTATION), certificateOperations(VAULT_PRESENTATION)],
    ['SSH keys', sshKeyOperations(PKI_SSH_PRESENTATION), sshKeyOperations(VAULT_SSH_PRESENTATION)],
    ['discovery', discoveryOperations(PKI_DISCOVERY_PRESENTATION), discoveryOperations(VAULT_DISCOVERY_PRESENTATION)],
  ])('%s: each operation of the one definition is documented for both ports', (_name, onPki, onVault) => {
    const pki = declaredOperations(onPki);
    expect(pki.length).toBeGreaterThan(0);
    expect(declaredOperations(onVault)).toEqual(pki);
    for (const service of ['pki', 'vault'] as const) {
      const documented = documentedOperations(apiDoc(service));
      expect({ service, undocumented: pki.filter((op) => !documented.includes(op)) }).toEqual({ service, undocumented: [] });
    }
  });

  it('reads headings the way the reference describes them (and ignores code blocks)', () => {
    const text = ['### GET /a/{id}', '```sh', '### POST /in/code', '```', '### Sharing', '### PUT /b/{x}/c/', '#### GET /not/an/operation'].join('\n');
    expect(documentedOperations(text)).toEqual(['GET /a/:_', 'PUT /b/:_/c']);
    expect(operationKey('GET', '/ocsp/:ca/*request')).toBe(operationKey('GET', '/ocsp/{ca}/*request'));
  });
});

/** `METHOD /path` of each route a controller class declares, read from Nest's own metadata. */
function declaredOperations(controller: Type<unknown>): string[] {
  const prefix = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
  const proto = controller.prototype as Record<string, unknown>;
  return Object.getOwnPropertyNames(proto)
    .filter((name) => name !== 'constructor' && Reflect.hasMetadata(PATH_METADATA, proto[name] as object))
    .map((name) => {
      const handler = proto[name] as object;
      const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod];
      return operationKey(method, `/${prefix}/${String(Reflect.getMetadata(PATH_METADATA, handler))}`.replace(/\/+/g, '/'));
    })
    .sort();
}
