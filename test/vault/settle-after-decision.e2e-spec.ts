import { Keyring } from '@app/crypto';
import { ACCOUNT_PENDING_CONTEXT } from '../../apps/vault/src/remote-reset/remote-change';
import { startTestServices, TestServices } from '../support/app';
import { ConnectionSink, startConnectionSink } from '../support/connection-sink';
import { createResource } from '../support/factories';
import { createOrgWithAdmin } from './users-orgs';
import { call, TestUser, user } from './workflow-helpers';
import { bindAsDecided } from '../support/destination';

const V1 = '/restapi/json/v1';

/**
 * A remote change an interrupted instance left pending is settled (a login to the target with
 * the pending and the stored password, as the server) before a new change, reconcile or
 * verification of that account. That settlement ran before the gate's decision: anyone with
 * password.change, in any organisation, could name any account id and make the server log
 * in with its passwords, writing rows in its organisation's audit trail that name them.
 * The decision comes first now; a caller the gate refuses starts nothing.
 */
describe('a pending change is settled only after the gate grants the caller', () => {
  let s: TestServices;
  let sink: ConnectionSink;
  let outsider: TestUser;
  let resourceId: number;
  let accountId: number;
  let orgB: number;

  beforeAll(async () => {
    [s, sink] = await Promise.all([startTestServices({ VERIFY_INTERVAL_MS: '0' }), startConnectionSink()]);
    const b = await createOrgWithAdmin(s, `settle-b-${process.pid}`);
    orgB = b.orgId;
    const r = await createResource(s.vaultUrl, b.token, { DNSNAME: '127.0.0.1' });
    [resourceId, accountId] = [r.resourceId, r.accountId];
    const pending = s.vault.get(Keyring).seal('Pending-Pass-word-1', ACCOUNT_PENDING_CONTEXT);
    await s.dataSource.query(`UPDATE resources SET remote_account_id = $2, remote_port = $3 WHERE id = $1`, [resourceId, accountId, sink.port]);
    await bindAsDecided(s.dataSource, resourceId);
    await s.dataSource.query(`UPDATE accounts SET pending_password = $2, pending_since = now() WHERE id = $1`, [accountId, pending]);
    outsider = await user(s, 'Password User', 'outsider');
  }, 60_000);
  afterAll(async () => {
    await sink?.close();
    await s?.close();
  });

  const attempts: [string, () => Promise<Record<string, any>>][] = [
    ['verify', () => call(s.vaultUrl, 'post', `${V1}/resources/${resourceId}/accounts/${accountId}/verify`, outsider.token, {})],
    ['remote change', () => call(s.vaultUrl, 'put', `${V1}/resources/${resourceId}/accounts/${accountId}/password`, outsider.token, { NEWPASSWORD: 'Outsider-Pass-word-1', RESETTYPE: 'REMOTE' })],
    ['reconcile', () => call(s.vaultUrl, 'post', `${V1}/resources/${resourceId}/accounts/${accountId}/reconcile`, outsider.token, {})],
  ];

  it.each(attempts)("%s by a user of another organisation: refused, no login to the target, nothing in that organisation's trail", async (_what, attempt) => {
    const before = sink.connections();
    const op = await attempt();
    expect(op.result).toEqual({ status: 'Failed', message: 'No such account found' });
    expect(sink.connections()).toBe(before);
    expect(await s.dataSource.query(`SELECT operation, description FROM audit WHERE org_id = $1 AND description LIKE '%outsider%'`, [orgB])).toEqual([]);
    const [row] = await s.dataSource.query('SELECT pending_password IS NOT NULL AS pending FROM accounts WHERE id = $1', [accountId]);
    expect(row.pending).toBe(true);
  });
});
