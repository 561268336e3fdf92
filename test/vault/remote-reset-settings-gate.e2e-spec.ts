import { startTestServices, TestServices } from '../support/app';
import { ConnectionSink, startConnectionSink } from '../support/connection-sink';
import { createResource } from '../support/factories';
import { call, TestUser, user } from './workflow-helpers';
import { bindAsDecided } from '../support/destination';

const V1 = '/restapi/json/v1';
const TEMPLATE = 'uid={account},ou=people,dc=example,dc=org';

/**
 * PUT .../remotepasswordreset decides where the administrator credential goes: its host,
 * port, TLS and CA need full access to the resource ('configure'). USERDN (LDAP: the DN the
 * administrator binds as, and the entry every later change, rotation and verification
 * writes an account's new password to) and DATABASE (PostgreSQL: which database's
 * authentication rule receives the password) decide it too. Someone with modify on the
 * administrator account alone changed them as a mere re-check ('use').
 */
describe('remote-reset settings that decide where credentials go need full access', () => {
  let s: TestServices;
  let sink: ConnectionSink;
  let mallory: TestUser;

  /** A resource of the super administrator whose administrator account Mallory may modify (account share), pointed at the sink. */
  async function configuredResource(type: string, settings: { userDn?: string; database?: string }) {
    const r = await createResource(s.vaultUrl, s.adminToken, { RESOURCETYPE: type, ACCOUNTNAME: 'svcadmin', DNSNAME: '127.0.0.1' });
    await s.dataSource.query(
      `UPDATE resources SET remote_account_id = $2, remote_port = $3, remote_tls = $6, remote_user_dn = $4, remote_database = $5 WHERE id = $1`,
      // LDAP binds only over checked TLS: STARTTLS, which the sink never completes.
      [r.resourceId, r.accountId, sink.port, settings.userDn ?? null, settings.database ?? null, type === 'LDAP Server' ? 'starttls' : 'off'],
    );
    await bindAsDecided(s.dataSource, r.resourceId);
    await s.dataSource.query(`INSERT INTO shares (resource_id, account_id, user_id, access_type) VALUES ($1, $2, $3, 'modify')`, [r.resourceId, r.accountId, mallory.id]);
    return r;
  }

  const configure = (rid: number, fields: Record<string, string>) =>
    call(s.vaultUrl, 'put', `${V1}/resources/${rid}/remotepasswordreset`, mallory.token, { ACCOUNTNAME: 'svcadmin', ...fields });
  const lastRow = async () =>
    (await s.dataSource.query(`SELECT operation, outcome, description FROM audit WHERE actor_id = $1 ORDER BY id DESC LIMIT 1`, [mallory.id]))[0];

  beforeAll(async () => {
    [s, sink] = await Promise.all([startTestServices(), startConnectionSink()]);
    mallory = await user(s, 'Administrator', 'modify-holder');
  }, 60_000);
  afterAll(async () => {
    await sink?.close();
    await s?.close();
  });

  it('an unchanged configuration is re-checked with modify on the administrator account (a login, to the sink)', async () => {
    const r = await configuredResource('LDAP Server', { userDn: TEMPLATE });
    const before = sink.connections();
    await configure(r.resourceId, { USERDN: TEMPLATE });
    expect(sink.connections()).toBe(before + 1);
  });

  it('a new USERDN is refused without full access to the resource: audited, nothing sent, nothing saved', async () => {
    const r = await configuredResource('LDAP Server', { userDn: TEMPLATE });
    const before = sink.connections();
    const op = await configure(r.resourceId, { USERDN: 'uid={account},ou=admins,dc=example,dc=org' });
    expect(op.result.status).toBe('Failed');
    expect(op.result.message).toContain('full access');
    expect(sink.connections()).toBe(before);
    expect(await lastRow()).toEqual({ operation: 'Password Use Denied', outcome: 'Failed', description: 'refused: LEVEL' });
    const [row] = await s.dataSource.query('SELECT remote_user_dn FROM resources WHERE id = $1', [r.resourceId]);
    expect(row.remote_user_dn).toBe(TEMPLATE);
  });

  it('a new DATABASE is refused without full access to the resource: audited, nothing sent, nothing saved', async () => {
    const r = await configuredResource('PostgreSQL', { database: 'postgres' });
    const before = sink.connections();
    const op = await configure(r.resourceId, { DATABASE: 'ldapauth' });
    expect(op.result.status).toBe('Failed');
    expect(op.result.message).toContain('full access');
    expect(sink.connections()).toBe(before);
    expect(await lastRow()).toEqual({ operation: 'Password Use Denied', outcome: 'Failed', description: 'refused: LEVEL' });
    const [row] = await s.dataSource.query('SELECT remote_database FROM resources WHERE id = $1', [r.resourceId]);
    expect(row.remote_database).toBe('postgres');
  });
});
