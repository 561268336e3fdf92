import request from 'supertest';
import { startTestServices, TestServices } from '../support/app';
import { createResource } from '../support/factories';
import { Json } from '../support/http';
import { call, share, TestUser, user } from '../vault/workflow-helpers';
import { bindAsDecided } from '../support/destination';

const V = '/restapi/json/v1';
let seq = 0;
const unique = (prefix: string) => `${prefix}-${process.pid}-${++seq}`;

/**
 * Issue 24: what decides where a stored credential is sent (a resource's DNS name, its name
 * when it has none, its type) or who may see it (any attribute a dynamic group's rule reads)
 * is policy, changed only through the gate.
 */
describe('attributes that decide a destination or access change only through the gate', () => {
  let s: TestServices;
  let owner: TestUser;
  let intruder: TestUser;
  let superAdmin: TestUser;

  const maxAudit = async () => Number((await s.dataSource.query('SELECT coalesce(max(id), 0) AS id FROM audit'))[0].id);
  const auditSince = (after: number, actorId: number) =>
    s.dataSource.query(`SELECT operation, outcome, account_name, description FROM audit WHERE id > $1 AND actor_id = $2 ORDER BY id`, [after, actorId]);
  const resourceRow = async (rid: number) =>
    (await s.dataSource.query('SELECT name, type, dns_name, description FROM resources WHERE id = $1', [rid]))[0];
  const editResource = (u: TestUser, rid: number, details: Json) => call(s.vaultUrl, 'put', `${V}/resources/${rid}`, u.token, details);
  const groupsOf = async (rid: number): Promise<string[]> =>
    (await s.dataSource.query('SELECT g.name FROM resource_group_membership m JOIN resource_groups g ON g.id = m.group_id WHERE m.resource_id = $1 ORDER BY g.name', [rid])).map(
      (g: { name: string }) => g.name,
    );

  beforeAll(async () => {
    s = await startTestServices();
    owner = await user(s, 'Password Administrator', 'pa-owner');
    intruder = await user(s, 'Password Administrator', 'pa-intruder');
    const [admin] = await s.dataSource.query(`SELECT id, username FROM users WHERE org_id = (SELECT id FROM organizations WHERE name = 'Default') AND is_super_admin LIMIT 1`);
    superAdmin = { id: admin.id, token: s.adminToken, name: admin.username };
  });
  afterAll(() => s.close());

  describe('destinations', () => {
    /** A Linux resource of `owner` whose administrator account (under two-approver access control when asked) is configured for remote resets. */
    async function administered(options: { dnsName?: string; controlled?: boolean } = {}) {
      const r = await createResource(s.vaultUrl, owner.token, { RESOURCENAME: unique('dest'), RESOURCETYPE: 'Linux', DNSNAME: options.dnsName ?? '127.0.0.1', ACCOUNTNAME: 'root' });
      await s.dataSource.query('UPDATE resources SET remote_account_id = $1, remote_port = 22 WHERE id = $2', [r.accountId, r.resourceId]);
      await bindAsDecided(s.dataSource, r.resourceId);
      if (options.controlled ?? true) {
        const op = await call(s.vaultUrl, 'put', `${V}/resources/${r.resourceId}/accounts/${r.accountId}/accesscontrol`, owner.token, {
          APPROVAL_REQUIRED: 'true', APPROVERS_REQUIRED: 2, ADMINS_APPROVE: 'true', EXCLUSIVE: 'true', CHECKOUT_MINUTES: 30,
        });
        expect(op.result.status).toBe('Success');
      }
      await share(s, r.resourceId, intruder.id, 'fullaccess');
      return r;
    }

    it.each([
      ['the DNS name', {}, { DNSNAME: '127.0.0.2' }],
      ['the name of a resource without a DNS name', { dnsName: '' }, { RESOURCENAME: 'elsewhere.example' }],
      ['the type', {}, { RESOURCETYPE: 'Windows' }],
    ])('a full-access caller who may not use the administrator cannot change %s: Failed, audited, nothing changed', async (_what, options, change) => {
      const r = await administered(options);
      const before = await resourceRow(r.resourceId);
      const from = await maxAudit();
      const op = await editResource(intruder, r.resourceId, change);
      expect(op.result.status).toBe('Failed');
      expect(op.result.message).toMatch(/request it and check it out first/);
      expect(await resourceRow(r.resourceId)).toEqual(before);
      expect(await auditSince(from, intruder.id)).toEqual([
        { operation: 'Password Use Denied', outcome: 'Failed', account_name: 'root', description: 'refused: CHECKOUT' },
      ]);
    });

    it('the same caller may still edit what decides no destination', async () => {
      const r = await administered();
      const op = await editResource(intruder, r.resourceId, { RESOURCEDESCRIPTION: 'patched monthly' });
      expect(op.result.status).toBe('Success');
      expect((await resourceRow(r.resourceId)).description).toBe('patched monthly');
    });

    it('one who may use the administrator changes the destination, audited naming it', async () => {
      const r = await administered({ controlled: false });
      const from = await maxAudit();
      const op = await editResource(owner, r.resourceId, { DNSNAME: '127.0.0.3' });
      expect(op.result.status).toBe('Success');
      expect((await resourceRow(r.resourceId)).dns_name).toBe('127.0.0.3');
      const rows = await auditSince(from, owner.id);
      // Issue 33: the move is a decision on every account; the administrator's binding moves with it, audited.
      const at = (host: string) => `Linux at ${host} port 22 TLS default CA none database default user DN none as root by administrator ${r.accountId}`;
      expect(rows).toEqual([
        expect.objectContaining({ operation: 'Destination Approved', account_name: 'root', description: `Its password may be sent to ${at('127.0.0.3')}; EDIT RESOURCE by ${owner.name}` }),
        expect.objectContaining({
          operation: 'Resource Modified',
          description: `changed DNSNAME; destination ${at('127.0.0.1')} -> ${at('127.0.0.3')} (decided on every account, administrator root)`,
        }),
      ]);
    });

    it('a view or modify share is not enough, whatever the administrator', async () => {
      const r = await administered({ controlled: false });
      const modifier = await user(s, 'Password Administrator', 'pa-modifier');
      await share(s, r.resourceId, modifier.id, 'modify');
      const op = await editResource(modifier, r.resourceId, { DNSNAME: '127.0.0.4' });
      expect(op.result).toEqual({ status: 'Failed', message: expect.stringMatching(/^You need full access to resource /) });
      expect((await resourceRow(r.resourceId)).dns_name).toBe('127.0.0.1');
    });
  });

  describe('dynamic group membership', () => {
    async function dynamicGroup(creator: TestUser, criterion: Json, noHelpdesk = false): Promise<string> {
      const name = unique('grp');
      const op = await call(s.vaultUrl, 'post', `${V}/resourcegroup`, creator.token, {
        critgroup: name, NoHelpDeskRetrieval: String(noHelpdesk), NoOfCriteria: '1', ...criterion,
      });
      expect(op.result.status).toBe('Success');
      return name;
    }

    it('renaming an account cannot take its resource out of a NoHelpDeskRetrieval group: Failed naming it, nothing changed', async () => {
      const tag = unique('svc');
      const group = await dynamicGroup(superAdmin, { condition_1: 'ACCOUNTNAME', operator_1: 'CONTAINS', valuefield_1: tag }, true);
      const r = await createResource(s.vaultUrl, owner.token, { ACCOUNTNAME: `${tag}-db` });
      const helpdesk = await user(s, 'Password User', 'pa-helpdesk');
      await s.dataSource.query(`INSERT INTO shares (resource_id, account_id, user_id, access_type) VALUES ($1, $2, $3, 'modify')`, [r.resourceId, r.accountId, helpdesk.id]);
      expect(await groupsOf(r.resourceId)).toEqual([group]);

      const op = await call(s.vaultUrl, 'put', `${V}/resources/${r.resourceId}/accounts/${r.accountId}`, helpdesk.token, { ACCOUNTNAME: 'plain-db' });
      expect(op.result.status).toBe('Failed');
      expect(op.result.message).toBe(`This change would make resource ${r.name} leave resource group ${group}, which only its creator or a super administrator can change`);
      expect(await groupsOf(r.resourceId)).toEqual([group]);
      expect((await s.dataSource.query('SELECT name FROM accounts WHERE id = $1', [r.accountId]))[0].name).toBe(`${tag}-db`);
      const read = await call(s.vaultUrl, 'get', `${V}/resources/${r.resourceId}/accounts/${r.accountId}/password`, helpdesk.token);
      expect(read.result.message).toMatch(/help desk users is disabled/);
    });

    it('an edit of the resource cannot move it into a group shared onwards: Failed naming the group', async () => {
      const tag = unique('fin');
      const group = await dynamicGroup(superAdmin, { condition_1: 'RESOURCENAME', operator_1: 'STARTS WITH', valuefield_1: tag });
      const r = await createResource(s.vaultUrl, owner.token, { DNSNAME: '127.0.0.9' });
      const op = await editResource(owner, r.resourceId, { RESOURCENAME: `${tag}-server` });
      expect(op.result).toEqual({ status: 'Failed', message: `This change would make resource ${tag}-server enter resource group ${group}, which only its creator or a super administrator can change` });
      expect((await resourceRow(r.resourceId)).name).toBe(r.name);
      expect(await groupsOf(r.resourceId)).toEqual([]);
    });

    it('adding or deleting an account that moves the resource is refused the same way', async () => {
      const tag = unique('ops');
      const group = await dynamicGroup(superAdmin, { condition_1: 'ACCOUNTNAME', operator_1: 'CONTAINS', valuefield_1: tag });
      const r = await createResource(s.vaultUrl, owner.token);
      const added = await call(s.vaultUrl, 'post', `${V}/resources/${r.resourceId}/accounts`, owner.token, { ACCOUNTLIST: [{ ACCOUNTNAME: `${tag}-x`, PASSWORD: 'Pw-Added-123!' }] });
      expect(added.result.status).toBe('Failed');
      expect(added.result.message).toContain(`enter resource group ${group}`);
      expect(await groupsOf(r.resourceId)).toEqual([]);

      const inGroup = await createResource(s.vaultUrl, owner.token, { ACCOUNTNAME: `${tag}-y` });
      const other = await call(s.vaultUrl, 'post', `${V}/resources/${inGroup.resourceId}/accounts`, owner.token, { ACCOUNTLIST: [{ ACCOUNTNAME: 'second', PASSWORD: 'Pw-Second-123!' }] });
      expect(other.result.status).toBe('Success');
      const deleted = (await request(s.vaultUrl).delete(`${V}/resources/${inGroup.resourceId}/accounts/${inGroup.accountId}`).set('AUTHTOKEN', owner.token)).body.operation;
      expect(deleted.result.status).toBe('Failed');
      expect(deleted.result.message).toContain(`leave resource group ${group}`);
      expect(await groupsOf(inGroup.resourceId)).toEqual([group]);
    });

    it('the group\'s creator and a super administrator may move resources, audited naming the groups entered and left', async () => {
      const tag = unique('mine');
      const mine = await dynamicGroup(owner, { condition_1: 'RESOURCENAME', operator_1: 'STARTS WITH', valuefield_1: tag });
      const r = await createResource(s.vaultUrl, owner.token, { DNSNAME: '127.0.0.9' });
      let from = await maxAudit();
      expect((await editResource(owner, r.resourceId, { RESOURCENAME: `${tag}-a` })).result.status).toBe('Success');
      expect(await groupsOf(r.resourceId)).toEqual([mine]);
      expect((await auditSince(from, owner.id))[0].description).toBe(`changed RESOURCENAME; ${tag}-a entered resource group ${mine}`);

      const theirs = await dynamicGroup(superAdmin, { condition_1: 'RESOURCENAME', operator_1: 'STARTS WITH', valuefield_1: `${tag}-b` });
      from = await maxAudit();
      expect((await editResource(superAdmin, r.resourceId, { RESOURCENAME: `${tag}-b` })).result.status).toBe('Success');
      expect((await auditSince(from, superAdmin.id))[0].description).toBe(`changed RESOURCENAME; ${tag}-b entered resource group ${theirs}`);
      expect(await groupsOf(r.resourceId)).toEqual([mine, theirs].sort());
    });
  });
});
