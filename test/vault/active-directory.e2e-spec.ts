import request from 'supertest';
import { startTestServices, TestServices } from '../support/app';
import { createResource } from '../support/factories';
import { inputData, Json } from '../support/http';
import { SambaFixture, startSamba } from '../support/samba';

const V1 = '/restapi/json/v1';

/**
 * Issue 37, the connector half, through the vault's API against a real Samba AD DC: a resource
 * of PAM360's `WindowsDomain` type configured with BASEDN; a change the domain's policy refuses
 * is Failed naming the rule with nothing stored; a disabled account is named; reconcile sets a
 * generated password that meets the domain's complexity; a schedule rotates an account and a
 * two-account pair rotates with its reads always logging in.
 */
describe('Active Directory accounts (Samba AD DC)', () => {
  let s: TestServices;
  let dc: SambaFixture;
  let resourceId: number;
  const ids: Record<string, number> = {};

  const call = async (method: 'get' | 'post' | 'put', path: string, details?: Json): Promise<Json> => {
    let req = request(s.vaultUrl)[method](`${V1}${path}`).set('AUTHTOKEN', s.adminToken);
    if (details) req = req.type('form').send({ INPUT_DATA: inputData(details) });
    return (await req).body.operation;
  };
  const stored = async (name: string) => (await call('get', `/resources/${resourceId}/accounts/${ids[name]}/password`)).Details.PASSWORD as string;
  const rotations = async (name: string): Promise<number> =>
    (await s.dataSource.query(`SELECT count(*)::int AS n FROM rotation_runs WHERE account_id = $1 AND status = 'done'`, [ids[name]]))[0].n;
  const until = async (check: () => Promise<boolean>, ms = 60_000) => {
    const end = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > end) throw new Error('timed out');
      await new Promise((r) => setTimeout(r, 200));
    }
  };

  beforeAll(async () => {
    [s, dc] = await Promise.all([startTestServices({ ROTATION_TICK_MS: '100', VERIFY_INTERVAL_MS: '0' }), startSamba()]);
    const accounts = { alice: 'Alice-Start-Pass-1', dora: 'Dora-Start-Pass-1', blue: 'Blue-Start-Pass-1', green: 'Green-Start-Pass-1', rita: 'Rita-Start-Pass-1' };
    for (const [name, password] of Object.entries(accounts)) await dc.createUser(name, password);
    resourceId = (
      await createResource(s.vaultUrl, s.adminToken, { RESOURCENAME: 'lab.test', RESOURCETYPE: 'WindowsDomain', DNSNAME: dc.host, ACCOUNTNAME: dc.admin.username, PASSWORD: dc.admin.password })
    ).resourceId;
    const added = await call('post', `/resources/${resourceId}/accounts`, { ACCOUNTLIST: Object.entries(accounts).map(([ACCOUNTNAME, PASSWORD]) => ({ ACCOUNTNAME, PASSWORD })) });
    expect(added.result.status).toBe('Success');
    const list = await call('get', `/resources/${resourceId}/accounts`);
    for (const a of list.Details['ACCOUNT LIST']) ids[a['ACCOUNT NAME']] = Number(a['ACCOUNT ID']);
  }, 180_000);
  afterAll(async () => {
    await s?.close();
    await dc?.stop();
  });

  it('is configured with the base DN over LDAPS (port 636 by default), proving the administrator may reset passwords', async () => {
    const res = await call('put', `/resources/${resourceId}/remotepasswordreset`, { ACCOUNTNAME: dc.admin.username, DNSNAME: dc.host, CACERT: dc.certPem, BASEDN: dc.baseDn });
    expect(res.result).toEqual({ status: 'Success', message: 'Remote password reset configured for resource lab.test' });
    expect(res.Details).toMatchObject({ CONNECTOR: 'ad', PORT: '636', TLS: 'verify', USERDN: dc.baseDn, RESOURCETYPE: 'WindowsDomain' });
    const bad = await call('put', `/resources/${resourceId}/remotepasswordreset`, { ACCOUNTNAME: dc.admin.username, BASEDN: 'uid={account},ou=people' });
    expect(bad.result).toEqual({ status: 'Failed', message: 'USERDN (or BASEDN) must be the base DN the accounts are found under, such as CN=Users,DC=example,DC=org' });
  });

  it('a change the domain policy refuses is Failed naming the rule; the stored password is unchanged and still logs in', async () => {
    // Meets the vault's Strong policy, but the domain asks for 24 characters.
    await dc.setDomainPolicy({ minPwdLength: '24' });
    let res: Json;
    try {
      res = await call('put', `/resources/${resourceId}/accounts/${ids.alice}/password`, { NEWPASSWORD: 'Alice-Secret-Pass-2', RESETTYPE: 'REMOTE' });
    } finally {
      await dc.setDomainPolicy({ minPwdLength: '7' });
    }
    expect(res.result.status).toBe('Failed');
    expect(res.result.message).toContain("the domain's password policy refused the new password: the password is too short. It should be equal or longer than 24 characters");
    expect(await stored('alice')).toBe('Alice-Start-Pass-1');
    expect(await dc.login('alice', 'Alice-Start-Pass-1')).toBe(true);
    const [row] = await s.dataSource.query('SELECT pending_password FROM accounts WHERE id = $1', [ids.alice]);
    expect(row.pending_password).toBeNull();
  });

  it('names a disabled account, for a change and for a verification', async () => {
    await dc.setEnabled('dora', false);
    const change = await call('put', `/resources/${resourceId}/accounts/${ids.dora}/password`, { NEWPASSWORD: 'Fresh-Pass-word-77', RESETTYPE: 'REMOTE' });
    expect(change.result).toMatchObject({ status: 'Failed', message: expect.stringContaining('User dora is disabled in the directory') });
    const verify = await call('post', `/resources/${resourceId}/accounts/${ids.dora}/verify`, {});
    expect(verify.Details.MESSAGE).toContain('the account is disabled in the directory');
    expect(await stored('dora')).toBe('Dora-Start-Pass-1');
    await dc.setEnabled('dora', true);
  });

  it('verifies and reconciles: the generated password meets the domain complexity (16 or more, not the name)', async () => {
    expect((await call('post', `/resources/${resourceId}/accounts/${ids.alice}/verify`, {})).Details.STATUS).toBe('IN SYNC');
    await dc.setPassword('alice', 'Behind-The-Back-9');
    expect((await call('post', `/resources/${resourceId}/accounts/${ids.alice}/verify`, {})).Details.STATUS).toBe('OUT OF SYNC');
    expect((await call('post', `/resources/${resourceId}/accounts/${ids.alice}/reconcile`, {})).result.status).toBe('Success');
    const now = await stored('alice');
    expect(now.length).toBeGreaterThanOrEqual(16);
    expect(now.toLowerCase()).not.toContain('alice');
    expect(await dc.login('alice', now)).toBe(true);
    expect(await dc.login('alice', 'Behind-The-Back-9')).toBe(false);
  });

  it('a schedule rotates an account, and a two-account pair rotates with every read logging in', async () => {
    expect((await call('put', `/resources/${resourceId}/accounts/${ids.blue}/dualaccount`, { PARTNERACCOUNTNAME: 'green', GRACEMINUTES: '0.01' })).result.status).toBe('Success');
    const made = await call('post', '/resourcegroup', { critgroup: 'domain', GROUPTYPE: 'static' });
    const groupId = made.Details.RESOURCEGROUPID;
    expect((await call('put', `/resourcegroup/${groupId}/resources`, { RESOURCEIDS: [String(resourceId)] })).result.status).toBe('Success');
    expect((await call('put', `/resourcegroup/${groupId}/passwordrotation`, { ENABLED: 'true', INTERVAL: '0.0167', INTERVALUNIT: 'minutes' })).result.status).toBe('Success');
    const failures: string[] = [];
    await until(async () => {
      const op = await call('get', `/resources/${resourceId}/accounts/${ids.blue}/password`);
      if (!(await dc.login(op.Details.ACCOUNTNAME, op.Details.PASSWORD))) failures.push(op.Details.ACCOUNTNAME);
      return (await rotations('blue')) >= 3 && (await rotations('rita')) >= 1;
    }, 120_000);
    await call('put', `/resourcegroup/${groupId}/passwordrotation`, { ENABLED: 'false' });
    expect(failures).toEqual([]);
    // A rotation already under way when the schedule stopped changes the directory before the
    // vault (the window two-account rotation exists for): read rita's password once none is.
    await until(async () => {
      const [left] = await s.dataSource.query(
        `SELECT (SELECT count(*) FROM rotation_runs WHERE group_id = $1 AND status = 'due')::int AS due,
                (SELECT count(*) FROM accounts WHERE resource_id = $2 AND pending_password IS NOT NULL)::int AS pending`,
        [Number(groupId), resourceId],
      );
      return left.due === 0 && left.pending === 0;
    });
    const rita = await stored('rita');
    expect(rita).not.toBe('Rita-Start-Pass-1');
    expect(await dc.login('rita', rita)).toBe(true);
    expect(await dc.login('rita', 'Rita-Start-Pass-1')).toBe(false);
  }, 180_000);
});
