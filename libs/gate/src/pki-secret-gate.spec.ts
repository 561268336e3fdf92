import { DataSource, EntityManager } from 'typeorm';
import { Actor, AuditEvent, AuditWriter } from '@app/audit';
import { PkiSecretGate, pkiSecretTarget } from './pki-secret-gate';

const actor = (role: string, orgId = 1): Actor => ({ id: 7, orgId, orgName: 'Default', username: 'alice', role, isSuperAdmin: false, ip: '127.0.0.1', client: 'test' });

describe('PkiSecretGate', () => {
  const own = { name: 'own' } as unknown as EntityManager;
  const request = { name: 'request' } as unknown as EntityManager;
  const gateTx = { name: 'gate transaction' } as unknown as EntityManager;
  let written: { event: AuditEvent; manager: unknown }[];
  let gate: PkiSecretGate;

  beforeEach(() => {
    written = [];
    const audit = { record: async (event: AuditEvent, manager: unknown) => void written.push({ event, manager }) } as unknown as AuditWriter;
    const dataSource = { manager: own, transaction: async (work: (m: EntityManager) => Promise<unknown>) => work(gateTx) };
    gate = new PkiSecretGate(dataSource as unknown as DataSource, audit);
  });

  const key = { id: 3, org_id: 1, name: 'deploy' };

  it('releases to a key manager of the organisation: audits, then produces in the same transaction', async () => {
    const produced: unknown[] = [];
    const secret = await gate.release(actor('Password Administrator'), pkiSecretTarget('ssh-private-key', 'deploy', key), async (m) => {
      produced.push(m, written.length);
      return 'the key';
    });
    expect(secret).toBe('the key');
    expect(produced).toEqual([gateTx, 1]);
    expect(written).toEqual([{ event: expect.objectContaining({ operation: 'SSH Key Exported', target: 'deploy' }), manager: gateTx }]);
    expect(written[0]!.event.outcome).toBeUndefined();
    await gate.release(actor('Administrator'), pkiSecretTarget('ssh-private-key', 'deploy', key), async () => 'again', request);
    expect(written[1]!.manager).toBe(request);
  });

  it.each([
    ['a role without pki.manage', actor('Password Auditor'), key, /does not allow this operation/, /does not hold pki.manage/],
    ['another organisation', actor('Administrator', 2), key, /^SSH key deploy does not exist$/, /not found/],
    ['nothing found', actor('Administrator'), undefined, /^SSH key deploy does not exist$/, /not found/],
  ])('refuses %s, audited on its own connection', async (_, who, row, message, why) => {
    const produce = jest.fn(async () => 'secret');
    await expect(gate.release(who, pkiSecretTarget('ssh-passphrase', 'deploy', row), produce, request)).rejects.toThrow(message);
    expect(produce).not.toHaveBeenCalled();
    expect(written).toEqual([{ event: expect.objectContaining({ operation: 'SSH Key Passphrase Retrieved', outcome: 'Failed' }), manager: own }]);
    expect(written[0]!.event.description).toMatch(why);
  });
});
