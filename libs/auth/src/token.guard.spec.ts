import { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { Authenticator } from './authenticator';
import { FailedAuthLedger } from './failed-auth-ledger';
import { hashToken } from '@app/crypto';
import { AppError, ErrorCode, Operation, Public } from '@app/http';
import { Permission } from './permissions';
import { AuthedRequest, TokenGuard } from './token.guard';

class Routes {
  @Operation('GET_AUDIT', Permission.AuditRead) audit() {}
  @Public() health() {}
  undeclared() {}
}

const USER = {
  id: 7, org_id: 1, org_name: 'Default', username: 'alice', role: 'Password Auditor', is_super_admin: false,
  locked: false, allowed_hosts: '', expired: false,
};

function setUp(row: Partial<typeof USER> | undefined) {
  const query = jest.fn().mockResolvedValue({ rows: row ? [{ ...USER, ...row }] : [] });
  const dataSource = { driver: { master: { query } } } as unknown as DataSource;
  const record = jest.fn().mockResolvedValue('1');
  const guard = new TokenGuard(new Reflector(), new Authenticator(dataSource, { record } as unknown as FailedAuthLedger));
  return { guard, query, record };
}

function context(handler: keyof Routes, headers: Record<string, string> = { authtoken: 'secret-token' }, ip = '127.0.0.1'): { ctx: ExecutionContext; req: AuthedRequest } {
  const req = { headers, query: {}, body: {}, method: 'GET', path: '/x', socket: { remoteAddress: ip } } as unknown as AuthedRequest;
  const ctx = {
    getHandler: () => Routes.prototype[handler],
    getClass: () => Routes,
    switchToHttp: () => ({ getRequest: () => req }),
  } as unknown as ExecutionContext;
  return { ctx, req };
}

const code = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (e) {
    return (e as AppError).code;
  }
  return 'allowed';
};

describe('TokenGuard (deny by default)', () => {
  it('lets a public route through without a token or a query', async () => {
    const { guard, query } = setUp(undefined);
    expect(await guard.canActivate(context('health', {}).ctx)).toBe(true);
    expect(query).not.toHaveBeenCalled();
  });

  it('looks the user up by the SHA-256 of the token and sets the actor when the role has the permission', async () => {
    const { guard, query } = setUp({});
    const { ctx, req } = context('audit');
    expect(await guard.canActivate(ctx)).toBe(true);
    expect(query.mock.calls[0][0].values).toEqual([hashToken('secret-token')]);
    expect(req.actor).toMatchObject({ id: 7, orgId: 1, username: 'alice', role: 'Password Auditor', ip: '127.0.0.1' });
  });

  it('refuses a role without the permission, and a route that declares none', async () => {
    expect(await code(setUp({ role: 'Password User' }).guard.canActivate(context('audit').ctx))).toBe(ErrorCode.Forbidden);
    expect(await code(setUp({ role: 'Administrator' }).guard.canActivate(context('undeclared').ctx))).toBe(ErrorCode.Forbidden);
  });

  it.each([
    ['no token', undefined, {}, ErrorCode.AuthFailed],
    ['an unknown token', undefined, { authtoken: 'nope' }, ErrorCode.AuthFailed],
    ['a locked user', { locked: true }, undefined, ErrorCode.UserLocked],
    ['an expired user', { expired: true }, undefined, ErrorCode.UserExpired],
    ['a call from elsewhere', { allowed_hosts: '10.0.0.0/8' }, undefined, ErrorCode.HostNotAllowed],
  ])('refuses %s and audits the failure without the token', async (_, row, headers, expected) => {
    const { guard, record } = setUp(row as Partial<typeof USER> | undefined);
    expect(await code(guard.canActivate(context('audit', headers as Record<string, string> | undefined).ctx))).toBe(expected);
    expect(record).toHaveBeenCalledWith(expect.objectContaining({ ip: '127.0.0.1', description: expect.stringMatching(/^GET \/x: /) }));
    expect(JSON.stringify(record.mock.calls)).not.toContain('secret-token');
  });

  it('slows repeated failures from one address', async () => {
    const { guard } = setUp(undefined);
    const started = Date.now();
    for (let i = 0; i < 7; i++) await code(guard.canActivate(context('audit', { authtoken: 'bad' }, '10.9.9.9').ctx));
    // Failures 6 and 7 wait 250 ms and 500 ms.
    expect(Date.now() - started).toBeGreaterThanOrEqual(700);
  });
});
