import request from 'supertest';
import { Permission, ROLE_PERMISSIONS, roleHas } from '@app/auth';
import { ROLES } from '@app/persistence';
import { createUserWithToken, startTestServices, TestServices } from '../support/app';
import { discoverRoutes, RouteEntry } from './routes';

const REFUSED = /does not allow this operation/;

/**
 * Each protected operation with each role: for every permission that has a route, one
 * representative route (a GET without path parameters when there is one) is called by a
 * user of each role. The guard must refuse exactly the roles that ROLE_PERMISSIONS does
 * not grant; a granted call may still fail later (no input), but never with "does not allow".
 */
describe('role × permission matrix, enforced on both services', () => {
  let s: TestServices;
  const tokens = new Map<string, string>();
  let cases: { app: 'vault' | 'pki'; route: RouteEntry }[] = [];

  beforeAll(async () => {
    s = await startTestServices();
    for (const [i, role] of ROLES.entries()) tokens.set(role, (await createUserWithToken(s, `matrix-${i}`, role)).token);
    for (const app of ['vault', 'pki'] as const) {
      const routes = discoverRoutes(s[app]).filter((r) => r.permission !== 'PUBLIC');
      for (const permission of Object.values(Permission)) {
        const candidates = routes.filter((r) => r.permission === permission);
        const route = candidates.find((r) => r.method === 'GET' && !r.path.includes(':')) ?? candidates.find((r) => r.method === 'GET') ?? candidates[0];
        if (route) cases.push({ app, route });
      }
    }
  });
  afterAll(() => s.close());

  const call = (app: 'vault' | 'pki', route: RouteEntry, token: string) => {
    const url = route.path.replace(/:[A-Za-z_]+/g, '999999');
    const agent = request(app === 'vault' ? s.vaultUrl : s.pkiUrl);
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'delete';
    return agent[method](url).set('AUTHTOKEN', token);
  };
  const messageOf = (res: request.Response): string => {
    const body = res.body ?? {};
    // /metrics refuses as a scraper expects: plain text with HTTP 403.
    return String(body.operation?.result?.message ?? body.result?.message ?? body.result?.Message ?? (res.status === 403 ? res.text : ''));
  };

  it('covers the permissions that have routes on each service', () => {
    const covered = new Set(cases.map((c) => c.route.permission));
    expect([...covered].sort()).toEqual(expect.arrayContaining([Permission.ResourceRead, Permission.UserManage, Permission.AuditRead, Permission.PkiRead, Permission.PkiManage]));
  });

  it.each(ROLES.map((r) => [r]))('%s: allowed exactly what the table grants', async (role) => {
    const mismatches: string[] = [];
    for (const { app, route } of cases) {
      const res = await call(app, route, tokens.get(role)!);
      const refused = REFUSED.test(messageOf(res));
      const granted = roleHas(role, route.permission);
      if (refused === granted) mismatches.push(`${app} ${route.method} ${route.path} (${route.permission}): ${granted ? 'refused but granted' : 'allowed but not granted'}`);
    }
    expect(mismatches).toEqual([]);
  });

  it('answers a refused role with the operation name and a Failed status (HTTP 200)', async () => {
    const res = await request(s.vaultUrl).get('/restapi/json/v1/audit').set('AUTHTOKEN', tokens.get('Password User')!);
    expect(res.status).toBe(200);
    expect(res.body.operation).toEqual({ name: 'GET_AUDIT', result: { status: 'Failed', message: 'Your role (Password User) does not allow this operation' } });
  });

  it('keeps the intended shape of the table', () => {
    // The auditor reads the audit trail and changes nothing; the Password User only uses what is shared.
    expect(ROLE_PERMISSIONS['Password Auditor']).toEqual(expect.arrayContaining([Permission.AuditRead]));
    for (const write of [Permission.ResourceCreate, Permission.ResourceManage, Permission.PasswordChange, Permission.UserManage, Permission.PkiManage, Permission.RequestApprove]) {
      expect(roleHas('Password Auditor', write)).toBe(false);
    }
    for (const admin of [Permission.ResourceCreate, Permission.UserManage, Permission.AuditRead, Permission.PkiManage, Permission.RequestApprove]) {
      expect(roleHas('Password User', admin)).toBe(false);
    }
    expect(roleHas('Administrator', Permission.SettingsManage)).toBe(true);
    expect(roleHas('Unknown Role', Permission.ResourceRead)).toBe(false);
  });
});
