import { DataSource, EntityManager } from 'typeorm';
import { Actor, AuditEvent, AuditWriter } from '@app/audit';
import { PkiSecretGate, pkiSecretTarget } from './pki-secret-gate';

const actor = (role: string, orgId = 1): Actor => ({ id: 7, orgId, orgName: 'Default', username: 'alice', role, isSuperAdmin: false, ip: '127.0.0.1', client: 'test' });

describe('PkiSecretGate', () => {
  const own = { name: 'own' } as unknown as EntityManager;
  const request = { name: 'request' } as unknown as EntityManager;
  let written: { event: AuditEvent; manager: unknown }[];
  let gate: PkiSecretGate;

  beforeEach(() => {
    written = [];
    const audit = { record: async (event: AuditEvent, manager: unknown) => void written.push({ event, manager }) } as unknown as AuditWriter;
    gate = new PkiSecretGate({ manager: own } as unknown as DataSource, audit);
  });

  const key = { id: 3, org_id: 1, name: 'deploy' };

  it('releases to a key manager of the organisation, audited in the caller’s transaction', async () => {
    await gate.release(actor('Password Administrator'), pkiSecretTarget('ssh-private-key', 'deploy', key), request);
    expect(written).toEqual([{ event: expect.objectContaining({ operation: 'SSH Key Exported', target: 'deploy' }), manager: request }]);
    expect(written[0]!.event.outcome).toBeUndefined();
  });

  it.each([
    ['a role without pki.manage', actor('Password Auditor'), key, /does not allow this operation/, /does not hold pki.manage/],
    ['another organisation', actor('Administrator', 2), key, /^SSH key deploy does not exist$/, /not found/],
    ['nothing found', actor('Administrator'), undefined, /^SSH key deploy does not exist$/, /not found/],
  ])('refuses %s, audited on its own connection', async (_, who, row, message, why) => {
    await expect(gate.release(who, pkiSecretTarget('ssh-passphrase', 'deploy', row), request)).rejects.toThrow(message);
    expect(written).toEqual([{ event: expect.objectContaining({ operation: 'SSH Key Passphrase Retrieved', outcome: 'Failed' }), manager: own }]);
    expect(written[0]!.event.description).toMatch(why);
  });
});
