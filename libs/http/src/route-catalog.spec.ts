import { CatalogRoute, RouteMatcher } from './route-catalog';

const route = (method: string, path: string, name: string): CatalogRoute =>
  ({ method, path, operation: { name }, handler: () => undefined, controller: class {}, isPublic: false, uploads: [] }) as unknown as CatalogRoute;

describe('RouteMatcher (naming requests that never reached a handler)', () => {
  const matcher = new RouteMatcher([
    route('GET', '/restapi/json/v1/resources/:rid', 'by id'),
    route('GET', '/restapi/json/v1/resources/resourcename/:name', 'GET_RESOURCEID'),
    route('DELETE', '/restapi/json/v1/resources/:rid', 'DELETE RESOURCE'),
    route('GET', '/restapi/json/v1/resources/:rid/accounts/:aid/password', 'GET PASSWORD'),
    route('POST', '/ocsp/:ca', 'OCSP POST'),
    route('GET', '/ocsp/:ca/*request', 'OCSP GET'),
  ]);

  it('prefers static segments over parameters, and matches the method', () => {
    expect(matcher.match('GET', '/restapi/json/v1/resources/resourcename/db')?.operation?.name).toBe('GET_RESOURCEID');
    expect(matcher.match('GET', '/restapi/json/v1/resources/12')?.operation?.name).toBe('by id');
    expect(matcher.match('DELETE', '/restapi/json/v1/resources/12')?.operation?.name).toBe('DELETE RESOURCE');
  });

  it('tolerates doubled and trailing slashes, and answers nothing for unknown paths', () => {
    expect(matcher.match('GET', '//restapi/json/v1//resources/1/accounts/2/password/')?.operation?.name).toBe('GET PASSWORD');
    expect(matcher.match('GET', '/restapi/json/v1/nothing')).toBeUndefined();
    expect(matcher.match('POST', '/restapi/json/v1/resources/12')).toBeUndefined();
  });

  it('matches a wildcard segment to the rest of the path, one segment or more', () => {
    expect(matcher.match('GET', '/ocsp/root-ca/MEMwQTA%2FMD0wOzAJBgUrDgMCGgUABBQ')?.operation?.name).toBe('OCSP GET');
    expect(matcher.match('GET', '/ocsp/root-ca/MEMw/QTA/MD0w')?.operation?.name).toBe('OCSP GET');
    expect(matcher.match('GET', '/ocsp/root-ca')).toBeUndefined();
    expect(matcher.match('POST', '/ocsp/root-ca')?.operation?.name).toBe('OCSP POST');
  });
});
