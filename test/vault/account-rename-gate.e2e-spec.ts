import { startTestServices, TestServices } from '../support/app';
import { createResource } from '../support/factories';
import { call, TestUser, user } from './workflow-helpers';
import { bindAsDecided } from '../support/destination';

const V1 = '/restapi/json/v1';

/**
 * An account's name is the principal on the target whose password the server sets with the
 * resource's administrator credential (scheduled rotation, the reset after a check-in) and
 * stores for the account's readers. EDIT ACCOUNT needed only modify on the account (the
 * password.change permission: a Password User): renamed to `root` (or `root@localhost`, the
 * same MySQL principal as an administrator named `root`), the next rotation set that
 * principal's password and handed it to whoever may read the account. Where the
 * administrator credential acts is decided as EDIT RESOURCE's DNS name is: the gate's
 * 'redirect' use of the administrator account (full access to the resource and its
 * conditions), and only when the resource has an administrator.
 */
describe('renaming an account of a resource with an administrator is a redirect decision', () => {
  let s: TestServices;
  let mallory: TestUser;
  let owner: TestUser;

  /** A resource of `owner` with `dbadmin` (its administrator when set) and `app`, on which Mallory holds modify (the account's share, or the resource's). */
  async function administered(shared: 'account' | 'resource' = 'account') {
    const r = await createResource(s.vaultUrl, owner.token, { ACCOUNTNAME: 'dbadmin', DNSNAME: '127.0.0.1' });
    const added = await call(s.vaultUrl, 'post', `${V1}/resources/${r.resourceId}/accounts`, owner.token, { ACCOUNTLIST: [{ ACCOUNTNAME: 'app', PASSWORD: 'App-Pass-word-1' }] });
    expect(added.result.status).toBe('Success');
    const [{ id: appId }] = await s.dataSource.query(`SELECT id FROM accounts WHERE resource_id = $1 AND name = 'app'`, [r.resourceId]);
    await s.dataSource.query(`INSERT INTO shares (resource_id, account_id, user_id, access_type) VALUES ($1, $2, $3, 'modify')`, [r.resourceId, shared === 'account' ? appId : null, mallory.id]);
    return { ...r, appId: appId as number };
  }
  const rename = (u: TestUser, rid: number, aid: number, name: string) => call(s.vaultUrl, 'put', `${V1}/resources/${rid}/accounts/${aid}`, u.token, { ACCOUNTNAME: name });
  const nameOf = async (aid: number) => (await s.dataSource.query('SELECT name FROM accounts WHERE id = $1', [aid]))[0].name;

  beforeAll(async () => {
    s = await startTestServices();
    owner = await user(s, 'Password Administrator', 'owner');
    mallory = await user(s, 'Password User', 'renamer');
  }, 60_000);
  afterAll(async () => s?.close());

  it("without an administrator, modify on the account renames it (nothing acts on the name on anyone else's behalf)", async () => {
    const r = await administered();
    expect((await rename(mallory, r.resourceId, r.appId, 'app2')).result.status).toBe('Success');
    expect(await nameOf(r.appId)).toBe('app2');
  });

  it.each(['root', 'dbadmin@localhost', 'App'])('with an administrator, a rename to %s needs full access to the resource: refused, audited, unchanged', async (name) => {
    const r = await administered('resource');
    await s.dataSource.query('UPDATE resources SET remote_account_id = $2 WHERE id = $1', [r.resourceId, r.accountId]);
    await bindAsDecided(s.dataSource, r.resourceId);
    const op = await rename(mallory, r.resourceId, r.appId, name);
    expect(op.result).toEqual({ status: 'Failed', message: `You need full access to resource ${r.name} to change where its stored credentials are sent` });
    expect(await nameOf(r.appId)).toBe('app');
    const rows = await s.dataSource.query(`SELECT operation, outcome, account_name, description FROM audit WHERE actor_id = $1 AND resource_id = $2 ORDER BY id`, [mallory.id, r.resourceId]);
    expect(rows).toEqual([{ operation: 'Password Use Denied', outcome: 'Failed', account_name: 'dbadmin', description: 'refused: LEVEL' }]);
  });

  it('with an administrator the caller cannot see (a share of the account alone), the rename is refused as the gate answers for it', async () => {
    const r = await administered('account');
    await s.dataSource.query('UPDATE resources SET remote_account_id = $2 WHERE id = $1', [r.resourceId, r.accountId]);
    await bindAsDecided(s.dataSource, r.resourceId);
    const op = await rename(mallory, r.resourceId, r.appId, 'root');
    expect(op.result).toEqual({ status: 'Failed', message: 'No such account found' });
    expect(await nameOf(r.appId)).toBe('app');
    const [row] = await s.dataSource.query(`SELECT operation, outcome, description FROM audit WHERE actor_id = $1 ORDER BY id DESC LIMIT 1`, [mallory.id]);
    expect(row).toEqual({ operation: 'Password Use Denied', outcome: 'Failed', description: expect.stringMatching(/^refused: NOT_FOUND/) });
  });

  it('with an administrator, the owner renames (audited as Account Modified); notes alone stay a modify edit', async () => {
    const r = await administered();
    await s.dataSource.query('UPDATE resources SET remote_account_id = $2 WHERE id = $1', [r.resourceId, r.accountId]);
    await bindAsDecided(s.dataSource, r.resourceId);
    expect((await call(s.vaultUrl, 'put', `${V1}/resources/${r.resourceId}/accounts/${r.appId}`, mallory.token, { NOTES: 'mine' })).result.status).toBe('Success');
    expect((await rename(owner, r.resourceId, r.appId, 'app-renamed')).result.status).toBe('Success');
    expect(await nameOf(r.appId)).toBe('app-renamed');
    const [row] = await s.dataSource.query(`SELECT operation, description FROM audit WHERE actor_id = $1 AND account_id = $2 ORDER BY id DESC LIMIT 1`, [owner.id, r.appId]);
    expect(row).toEqual({ operation: 'Account Modified', description: 'renamed from app' });
  });
});
