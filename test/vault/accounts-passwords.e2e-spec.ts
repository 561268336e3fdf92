import request from 'supertest';
import { setSettingCommand, showSettingsCommand } from '../../scripts/admin/settings.commands';
import { createUserWithToken, startTestServices, TestServices } from '../support/app';
import { createResource } from '../support/factories';
import { inputData } from '../support/http';
import { adminContext, auditRows, vaultClient, VaultClient } from './vault-client';

describe('vault accounts and passwords, with the reason and ticketing settings', () => {
  let s: TestServices;
  let admin: VaultClient;
  const setSetting = (name: string, value: string) => setSettingCommand.run(adminContext(s), { name, value });

  beforeAll(async () => {
    s = await startTestServices();
    admin = vaultClient(s, s.adminToken);
  });
  afterAll(() => s.close());

  describe('accounts (ops 2, 3, 18, 20, 21)', () => {
    it('adds several accounts with per-account status and the exact duplicate message', async () => {
      const r = await createResource(s.vaultUrl, s.adminToken, { ACCOUNTNAME: 'root' });
      const res = await admin.post(`/resources/${r.resourceId}/accounts`, {
        ACCOUNTLIST: [
          { ACCOUNTNAME: 'admin', PASSWORD: 'Admin-Pass-123!', ACCOUNTPASSWORDPOLICY: 'Low', NOTES: 'ops' },
          { ACCOUNTNAME: 'ROOT', PASSWORD: 'x' },
          { ACCOUNTNAME: 'admin', PASSWORD: 'y' },
        ],
      });
      expect(res.body).toEqual({
        operation: {
          name: 'ADD ACCOUNTS',
          result: { status: 'Success', message: 'Account(s) added successfully' },
          Details: [
            { admin: { STATUS: 'Account added successfully' } },
            { ROOT: { STATUS: 'Account is not added  as it already exists' } },
            { admin: { STATUS: 'Account is not added  as it already exists' } },
          ],
          totalRows: 3,
        },
      });
      const list = (await admin.get(`/resources/${r.resourceId}/accounts`)).body.operation.Details['ACCOUNT LIST'];
      expect(list.map((a: Record<string, string>) => [a['ACCOUNT NAME'], a['ACCOUNT PASSWORD POLICY'], a.ACCOUNT_DESCRIPTION])).toEqual([
        ['admin', 'Low', 'ops'],
        ['root', 'Strong', ''],
      ]);
      expect(list[0]).toEqual({
        'ACCOUNT ID': expect.stringMatching(/^\d+$/), 'ACCOUNT NAME': 'admin', PASSWDID: list[0]['ACCOUNT ID'], 'PASSWORD STATUS': '****',
        'ACCOUNT PASSWORD POLICY': 'Low', ACCOUNT_DESCRIPTION: 'ops', ISFAVPASS: 'false', ISREASONREQUIRED: 'false',
        IS_TICKETID_REQD: 'false', IS_TICKETID_REQD_MANDATORY: 'false', IS_TICKETID_REQD_ACW: 'false',
      });
      expect(await auditRows(s, `operation = 'Account Added' AND resource_id = $1`, [r.resourceId])).toHaveLength(1);
    });

    it('fails the whole ACCOUNTLIST on a bad entry, writing nothing', async () => {
      const r = await createResource(s.vaultUrl, s.adminToken);
      const cases: [unknown, string][] = [
        [undefined, 'ACCOUNTLIST is required'],
        ['admin', 'ACCOUNTLIST must be a list of {ACCOUNTNAME, PASSWORD, ACCOUNTPASSWORDPOLICY, NOTES}'],
        [[{ ACCOUNTNAME: 'ok', PASSWORD: 'Ok-123456789!' }, { ACCOUNTNAME: 'nopass' }], 'ACCOUNTLIST[1].PASSWORD is required'],
        [[{ ACCOUNTNAME: 'ok', PASSWORD: 'p', ACCOUNTPASSWORDPOLICY: 'Nope' }], 'ACCOUNTPASSWORDPOLICY: no password policy named "Nope"'],
        [[7, 8], 'ACCOUNTLIST[0] must be an object with ACCOUNTNAME and PASSWORD'],
      ];
      for (const [list, message] of cases) {
        const res = await admin.post(`/resources/${r.resourceId}/accounts`, list === undefined ? {} : { ACCOUNTLIST: list });
        expect(res.body.operation.result).toEqual({ status: 'Failed', message });
      }
      expect(await s.dataSource.query('SELECT name FROM accounts WHERE resource_id = $1', [r.resourceId])).toEqual([{ name: 'root' }]);
    });

    it('shows compliance and expiry against the account policy', async () => {
      const r = await createResource(s.vaultUrl, s.adminToken, { PASSWORD: 'short1', ACCOUNTPASSWORDPOLICY: 'Strong' });
      const d = (await admin.get(`/resources/${r.resourceId}/accounts/${r.accountId}`)).body.operation.Details;
      expect(d).toMatchObject({
        DESCRIPTION: 'N/A', PASSWDID: String(r.accountId), 'PASSWORD STATUS': '****', 'PASSWORD POLICY': 'Strong', 'EXPIRY STATUS': 'Valid',
        'COMPLIANT STATUS': 'Non-Compliant', 'LAST ACCESSED TIME': 'N/A', PASSWORDREQUEST_REASON_MANDATORY: 'false',
      });
      expect(d['COMPLIANT REASON']).toMatch(/^Minimum length must be 8/);
      await s.dataSource.query(`UPDATE accounts SET password_changed_at = now() - interval '91 days' WHERE id = $1`, [r.accountId]);
      await admin.get(`/resources/${r.resourceId}/accounts/${r.accountId}/password`);
      const later = (await admin.get(`/resources/${r.resourceId}/accounts/${r.accountId}`)).body.operation.Details;
      expect(later['EXPIRY STATUS']).toBe('Expired');
      expect(later['LAST ACCESSED TIME']).toMatch(/^[A-Z][a-z]{2} \d{1,2}, \d{4} \d{2}:\d{2} [AP]M$/);
      const ok = await createResource(s.vaultUrl, s.adminToken, { PASSWORD: 'Compliant-Pass-123' });
      const okd = (await admin.get(`/resources/${ok.resourceId}/accounts/${ok.accountId}`)).body.operation.Details;
      expect(okd).toMatchObject({ 'COMPLIANT STATUS': 'Compliant', 'COMPLIANT REASON': '-' });
    });

    it('edits an account (name, policy, notes, custom fields) and deletes it, keeping the audit', async () => {
      const r = await createResource(s.vaultUrl, s.adminToken, { ACCOUNTNAME: 'svc' });
      const res = await admin.put(`/resources/${r.resourceId}/accounts/${r.accountId}/`, {
        ACCOUNTNAME: 'svc-renamed', ACCOUNTPASSWORDPOLICY: 'medium', NOTES: 'batch jobs', ACCOUNTCUSTOMFIELD: [{ CUSTOMLABEL: 'Owner', CUSTOMVALUE: 'team-a' }],
      });
      expect(res.body.operation).toEqual({ name: 'EDIT ACCOUNT', result: { status: 'Success', message: 'Account svc-renamed modified successfully' } });
      const d = (await admin.get(`/resources/${r.resourceId}/accounts/${r.accountId}`)).body.operation.Details;
      expect(d).toMatchObject({ DESCRIPTION: 'batch jobs', 'PASSWORD POLICY': 'Medium' });
      expect(d['CUSTOM FIELD']).toEqual([{ CUSTOMFIELDLABEL: 'Owner', CUSTOMFIELDVALUE: 'team-a', CUSTOMFIELDTYPE: 'Character' }]);
      await admin.post(`/resources/${r.resourceId}/accounts`, { ACCOUNTLIST: [{ ACCOUNTNAME: 'other', PASSWORD: 'p' }] });
      const clash = await admin.put(`/resources/${r.resourceId}/accounts/${r.accountId}`, { ACCOUNTNAME: 'OTHER' });
      expect(clash.body.operation.result).toEqual({ status: 'Failed', message: `Account OTHER already exists in resource ${r.name}` });

      const del = await admin.delete(`/resources/${r.resourceId}/accounts/${r.accountId}/`);
      expect(del.body.operation).toEqual({ name: 'DELETE ACCOUNT', result: { status: 'Success', message: 'Account svc-renamed deleted successfully' } });
      expect((await admin.get(`/resources/${r.resourceId}/accounts/${r.accountId}`)).body.operation.result.message).toBe('No such account found');
      expect((await auditRows(s, 'account_id = $1', [r.accountId])).map((a) => a.operation)).toEqual([
        'Resource Added',
        'Account Modified',
        // The switch to Medium had the password assessed against it, on the gate's decision.
        'Password Compliance Checked',
        'Account Deleted',
      ]);
    });
  });

  describe('passwords (ops 4, 5) and settings', () => {
    it('keeps every previous password in history and refuses reuse of the last ones', async () => {
      const r = await createResource(s.vaultUrl, s.adminToken, { PASSWORD: 'First-Pass-1234!' });
      const url = `/resources/${r.resourceId}/accounts/${r.accountId}/password`;
      expect((await admin.put(url, { NEWPASSWORD: 'Second-Pass-1234!', RESETTYPE: 'LOCAL' })).body.operation.result.status).toBe('Success');
      const reuse = await admin.put(url, { NEWPASSWORD: 'First-Pass-1234!' });
      expect(reuse.body.operation.result).toEqual({ status: 'Failed', message: 'Must not be one of the last 4 password(s)' });
      expect(await s.dataSource.query('SELECT count(*)::int AS n FROM password_history WHERE account_id = $1', [r.accountId])).toEqual([{ n: 1 }]);
      const remote = await admin.put(url, { NEWPASSWORD: 'Third-Pass-1234!', RESETTYPE: 'REMOTE' });
      expect(remote.body.operation).toMatchObject({ name: 'CHANGE PASSWORD', result: { status: 'Failed' } });
      expect((await admin.get(url)).body.operation.Details.PASSWORD).toBe('Second-Pass-1234!');
    });

    it('accepts a 10-character password under the built-in Strong policy, as the original does (minimum 8)', async () => {
      const r = await createResource(s.vaultUrl, s.adminToken, { PASSWORD: 'First-Pass-1234!', ACCOUNTPASSWORDPOLICY: 'Strong' });
      const url = `/resources/${r.resourceId}/accounts/${r.accountId}/password`;
      const ok = await admin.put(url, { NEWPASSWORD: 'Abcde-123x', RESETTYPE: 'LOCAL' });
      expect(ok.body.operation.result).toEqual({ status: 'Success', message: 'Password changed successfully' });
      const short = await admin.put(url, { NEWPASSWORD: 'Ab-1x', RESETTYPE: 'LOCAL' });
      expect(short.body.operation.result.status).toBe('Failed');
      expect(short.body.operation.result.message).toMatch(/Minimum length must be 8/);
      const d = (await admin.get(`/resources/${r.resourceId}/accounts/${r.accountId}`)).body.operation.Details;
      expect(d).toMatchObject({ 'PASSWORD POLICY': 'Strong', 'COMPLIANT STATUS': 'Compliant', 'COMPLIANT REASON': '-' });
    });

    it('requires REASON, then TICKETID, when the settings say so, naming the missing one; refusals are audited', async () => {
      const r = await createResource(s.vaultUrl, s.adminToken);
      const url = `/resources/${r.resourceId}/accounts/${r.accountId}/password`;
      await setSetting('reason-required', 'true');
      const noReason = await admin.get(url);
      expect(noReason.body.operation.result).toEqual({ status: 'Failed', message: 'REASON is required: this server asks for a reason to access passwords and files' });
      expect(noReason.body.operation.Details).toBeUndefined();
      expect((await admin.get(url, { REASON: 'deploy' })).body.operation.Details).toEqual({ PASSWORD: r.password });

      await setSetting('ticketing', 'true');
      const noTicket = await admin.get(url, { REASON: 'deploy' });
      expect(noTicket.body.operation.result.message).toBe('TICKETID is required: ticketing is enabled on this server');
      const change = await admin.put(url, { NEWPASSWORD: 'Gated-Pass-1234!', REASON: 'rotate' });
      expect(change.body.operation.result.message).toBe('TICKETID is required: ticketing is enabled on this server');
      expect((await admin.get(url, { REASON: 'deploy', TICKETID: 'CHG-1' })).body.operation.Details).toEqual({ PASSWORD: r.password });

      const flags = (await admin.get(`/resources/${r.resourceId}/accounts`)).body.operation.Details;
      expect(flags.PASSWORDREQUEST_REASON_MANDATORY).toBe('true');
      expect(flags['ACCOUNT LIST'][0]).toMatchObject({ ISREASONREQUIRED: 'true', IS_TICKETID_REQD: 'true', IS_TICKETID_REQD_MANDATORY: 'true' });

      const a2a = await admin.get(`/resources/getResourceAccountDetails?RESOURCEID=${r.resourceId}&ACCOUNTID=${r.accountId}`);
      expect(a2a.body.operation.result.status).toBe('Failed');
      expect(JSON.parse(a2a.body.operation.Details.ACCOUNTDETAILS)).toMatchObject({ PASSWORD_REASON: 'REASON is required: this server asks for a reason to access passwords and files' });
      expect(a2a.body.operation.Details.ACCOUNTDETAILS).not.toContain(r.password);

      const rows = await auditRows(s, `account_id = $1 AND operation LIKE 'Password Retrie%'`, [r.accountId]);
      expect(rows.map((a) => [a.operation, a.outcome, a.reason, a.ticket_id, a.description])).toEqual([
        ['Password Retrieval Denied', 'Failed', '', '', 'refused: REASON'],
        ['Password Retrieved', 'Success', 'deploy', '', ''],
        ['Password Retrieval Denied', 'Failed', 'deploy', '', 'refused: TICKETID'],
        ['Password Retrieved', 'Success', 'deploy', 'CHG-1', ''],
        ['Password Retrieval Denied', 'Failed', '', '', 'refused: REASON'],
      ]);
      const settingRows = await auditRows(s, `operation = 'Setting Changed'`);
      expect(settingRows.map((a) => a.description)).toEqual(['reason-required set to true (admin CLI)', 'ticketing set to true (admin CLI)']);

      await setSetting('reason-required', 'false');
      await setSetting('ticketing', 'false');
      expect((await admin.get(url)).body.operation.result.status).toBe('Success');
    });

    it('takes a JSON null REASON or TICKETID as not given, on every path of the read and on a change (a null reached .slice: HTTP 500)', async () => {
      const r = await createResource(s.vaultUrl, s.adminToken);
      const url = `/resources/${r.resourceId}/accounts/${r.accountId}/password`;
      const nulls = { REASON: null, TICKETID: null };
      // The query form (the lean route) and a body (the controller).
      expect((await admin.get(url, nulls)).body.operation).toMatchObject({ result: { status: 'Success' }, Details: { PASSWORD: r.password } });
      const withBody = await request(s.vaultUrl).get(`/restapi/json/v1${url}`).set('AUTHTOKEN', s.adminToken).type('form').send({ INPUT_DATA: inputData(nulls) });
      expect([withBody.status, withBody.body.operation.Details]).toEqual([200, { PASSWORD: r.password }]);
      const change = await admin.put(url, { NEWPASSWORD: 'Null-Reason-1234!', ...nulls });
      expect(change.body.operation.result).toEqual({ status: 'Success', message: 'Password changed successfully' });
      // Where a reason is required, a null one is a missing one.
      await setSetting('reason-required', 'true');
      try {
        expect((await admin.get(url, nulls)).body.operation.result).toEqual({ status: 'Failed', message: 'REASON is required: this server asks for a reason to access passwords and files' });
      } finally {
        await setSetting('reason-required', 'false');
      }
      const rows = await auditRows(s, `account_id = $1 AND operation LIKE 'Password Retrie%'`, [r.accountId]);
      expect(rows.map((a) => [a.operation, a.reason, a.ticket_id])).toEqual([
        ['Password Retrieved', '', ''],
        ['Password Retrieved', '', ''],
        ['Password Retrieval Denied', '', ''],
      ]);
    });

    it('shows the settings and refuses unknown ones from the admin command', async () => {
      const lines: string[] = [];
      const log = jest.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
      try {
        await showSettingsCommand.run(adminContext(s), {});
      } finally {
        log.mockRestore();
      }
      expect(lines.map((l) => l.split(/\s+/).slice(0, 2))).toEqual([['reason-required', 'false'], ['ticketing', 'false'], ['totp-for-everyone', 'false']]);
      await expect(setSetting('colour', 'true')).rejects.toThrow('--name must be one of: reason-required, ticketing, totp-for-everyone');
      await expect(setSetting('ticketing', 'maybe')).rejects.toThrow('--value must be true or false');
    });

    it('lets an auditor read but never change, and a role without the permission is refused', async () => {
      const r = await createResource(s.vaultUrl, s.adminToken);
      const auditor = await createUserWithToken(s, 'auditor', 'Password Auditor');
      await admin.put(`/resources/${r.resourceId}/share`, { ACCESSTYPE: 'fullaccess', USERID: String(auditor.id) });
      const api = vaultClient(s, auditor.token);
      expect((await api.get(`/resources/${r.resourceId}/accounts/${r.accountId}/password`)).body.operation.Details.PASSWORD).toBe(r.password);
      const change = await api.put(`/resources/${r.resourceId}/accounts/${r.accountId}/password`, { NEWPASSWORD: 'Auditor-Pass-123!' });
      expect(change.body.operation.result).toEqual({ status: 'Failed', message: 'Your role (Password Auditor) does not allow this operation' });
    });
  });
});
